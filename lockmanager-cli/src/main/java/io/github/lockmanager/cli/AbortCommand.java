package io.github.lockmanager.cli;

import io.github.lockmanager.admin.LockJson;
import io.github.lockmanager.spi.LockStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "abort", mixinStandardHelpOptions = true,
        description = "Asks every holder of KEY to stop: within its abort poll interval each holder's node interrupts "
                + "a holder thread, or cancels a task's work (a @ClusterLocked stage or Mono, a Reactor pipeline) and "
                + "tells its listener. The lock stays held until its holder lets go of it or its lease ends.")
final class AbortCommand extends StoreCommand {
    @Parameters(paramLabel = "KEY", description = "The key as the application names it")
    String key;

    @Option(names = "--by", paramLabel = "NAME", description = "Who asks, for the log; default: ${DEFAULT-VALUE}",
            defaultValue = "${sys:user.name} (lockmanager command)")
    String requestedBy;

    @Option(names = "--format", description = "table or json; default: ${DEFAULT-VALUE}", defaultValue = "table")
    Format format;

    @Override
    int run(LockStore store) throws Exception {
        if (!admin(store).abort(key, keyOptions.level, requestedBy)) {
            return notLocked(key);
        }
        if (format == Format.json) {
            out().println("{\"key\": " + LockJson.quote(key) + ", \"level\": " + LockJson.quote(keyOptions.level.name())
                    + ", \"aborted\": true, \"requestedBy\": " + LockJson.quote(requestedBy) + "}");
        } else {
            out().println("Abort asked of the holders of '" + key + "'; at their next poll their nodes stop them (a "
                    + "thread is interrupted, a task's work cancelled).");
        }
        return 0;
    }
}
