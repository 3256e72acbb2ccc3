package io.github.lockmanager.cli;

import io.github.lockmanager.spi.LockStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "cleanup", mixinStandardHelpOptions = true,
        description = "Deletes the records that no lock uses any more (free or expired for longer than the store's "
                + "idle record retention), as the managers do now and then. Fencing tokens keep increasing.")
final class CleanupCommand extends StoreCommand {
    @Option(names = "--by", paramLabel = "NAME", description = "Who asks, for the log; default: ${DEFAULT-VALUE}",
            defaultValue = "${sys:user.name} (lockmanager command)")
    String requestedBy;

    @Override
    int run(LockStore store) throws Exception {
        out().println("Deleted " + admin(store).cleanUp(requestedBy) + " idle records from " + storeOptions.describe());
        return 0;
    }
}
