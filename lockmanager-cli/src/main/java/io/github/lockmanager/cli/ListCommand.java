package io.github.lockmanager.cli;

import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;

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
        List<LockRecord> records = store.list().stream().filter(this::shown)
                .sorted(Comparator.comparing((LockRecord r) -> r.key().name()).thenComparing(LockRecord::nodeId))
                .toList();
        if (format == Format.json) {
            Records.json(records, Instant.now(), out());
        } else {
            Records.table(records, Instant.now(), out());
        }
        return 0;
    }

    private boolean shown(LockRecord record) {
        boolean client = allClients || (record.key().clientId().equals(keyOptions.client)
                && (record.key().level() == LockLevel.XDC || keyOptions.farm.equals(record.key().farmId())));
        return client && (prefix == null || record.key().name().startsWith(prefix))
                && (node == null || record.nodeId().equals(node))
                && (status == null || record.status() == status);
    }
}
