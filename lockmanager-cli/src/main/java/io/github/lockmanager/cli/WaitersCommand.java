package io.github.lockmanager.cli;

import io.github.lockmanager.LockWaiter;
import io.github.lockmanager.admin.LockJson;
import io.github.lockmanager.spi.LockStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.List;

@Command(name = "waiters", mixinStandardHelpOptions = true,
        description = "Lists who waits in turn for which lock: the requests fair waits registered, on any node, per key "
                + "first in line first. Waits that are not fair register nothing and are not listed.")
final class WaitersCommand extends StoreCommand {
    @Option(names = "--format", description = "table or json; default: ${DEFAULT-VALUE}", defaultValue = "table")
    Format format;

    @Override
    int run(LockStore store) throws Exception {
        List<LockWaiter> waiters = admin(store).snapshot().waiters();
        if (format == Format.json) {
            out().println(LockJson.waiters(waiters));
        } else {
            Records.waiters(waiters, out());
        }
        return 0;
    }
}
