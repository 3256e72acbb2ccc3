package io.github.lockmanager.cli;

import io.github.lockmanager.LockStatus;
import io.github.lockmanager.admin.LockAdmin;
import io.github.lockmanager.admin.LockFilter;
import io.github.lockmanager.spi.LockStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.time.Duration;

@Command(name = "list", mixinStandardHelpOptions = true,
        description = "Lists the live locks of a client: one line per holder (a key held shared shows once per holder).")
final class ListCommand extends StoreCommand {
    @Option(names = "--format", description = "table or json; default: ${DEFAULT-VALUE}", defaultValue = "table")
    Format format;

    @Option(names = "--prefix", description = "Only keys that start with this text")
    String prefix;

    @Option(names = "--node", description = "Only locks held by this node")
    String node;

    @Option(names = "--status", description = "Only locks in this status: RUNNING or ABORT")
    LockStatus status;

    @Option(names = "--all-clients", description = "Every client's locks, not only --client's")
    boolean allClients;

    enum Format { table, json }

    @Override
    int run(LockStore store) throws Exception {
        LockAdmin admin = allClients ? LockAdmin.builder(store).allClients().snapshotTtl(Duration.ZERO).build()
                : admin(store);
        print(admin.snapshot().matching(new LockFilter(prefix, node, status)), format, admin);
        return 0;
    }
}
