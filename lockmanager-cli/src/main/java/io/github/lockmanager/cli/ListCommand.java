package io.github.lockmanager.cli;

import io.github.lockmanager.LockStatus;
import io.github.lockmanager.admin.LockAdmin;
import io.github.lockmanager.admin.LockFilter;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
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

    @Option(names = "--all-clients", description = "Every client's locks, not only --client's, with a CLIENT column")
    boolean allClients;

    @Override
    int run(LockStore store) throws Exception {
        LockAdmin admin = allClients ? LockAdmin.builder(store).allClients().snapshotTtl(Duration.ZERO).build()
                : admin(store);
        List<LockRecord> records = admin.snapshot().matching(new LockFilter(prefix, node, status));
        if (spec.commandLine().getParseResult().hasMatchedOption("--level")) {
            // without --level both levels are listed; with it, that level's only
            records = records.stream().filter(r -> r.key().level() == keyOptions.level).toList();
        }
        print(records, format, admin, allClients);
        if (records.isEmpty() && !allClients) {
            otherClients(store);
        }
        return 0;
    }

    /**
     * Says on standard error which clients do hold locks when the one asked for holds none: a wrong --client (the
     * managers' clientId) is the likeliest reason for an empty list. The list on standard output stays empty.
     */
    private void otherClients(LockStore store) throws Exception {
        Map<String, Long> byClient = new TreeMap<>();
        for (LockRecord record : LockAdmin.builder(store).allClients().snapshotTtl(Duration.ZERO).build().snapshot()
                .matching(new LockFilter(null, null, null))) {
            byClient.merge(record.key().clientId(), 1L, Long::sum);
        }
        byClient.remove(keyOptions.client);
        if (!byClient.isEmpty()) {
            StringBuilder held = new StringBuilder();
            byClient.forEach((client, count) -> held.append(held.length() == 0 ? "" : ", ").append("'").append(client)
                    .append("' (").append(count).append(count == 1 ? " lock)" : " locks)"));
            err().println("lockmanager: client '" + keyOptions.client + "' holds no locks; other clients do: " + held
                    + ". Name one with --client (the managers' clientId), or list them all with --all-clients.");
        }
    }
}
