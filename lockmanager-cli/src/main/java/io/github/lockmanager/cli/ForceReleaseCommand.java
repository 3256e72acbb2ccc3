package io.github.lockmanager.cli;

import io.github.lockmanager.admin.LockAdmin;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.List;

@Command(name = "force-release", mixinStandardHelpOptions = true,
        description = "Releases every live record of KEY, whoever holds it. Each holder's node learns at its next "
                + "check that the lock is no longer its own (NOT_OWNED), interrupts the holder and refuses its guarded "
                + "work; the next holder gets a higher fencing token. Prefer abort, which lets the holder stop.")
final class ForceReleaseCommand extends StoreCommand {
    @Parameters(paramLabel = "KEY", description = "The key as the application names it")
    String key;

    @Option(names = "--by", required = true, paramLabel = "NAME", description = "Who asks, for the record")
    String requestedBy;

    @Option(names = "--format", description = "table or json (the released records); default: ${DEFAULT-VALUE}",
            defaultValue = "table")
    Format format;

    @Override
    int run(LockStore store) throws Exception {
        if (requestedBy.isBlank()) {
            throw new IllegalArgumentException("--by must name who asks");
        }
        LockAdmin admin = admin(store);
        List<LockRecord> released = admin.forceRelease(key, keyOptions.level, requestedBy);
        if (released.isEmpty()) {
            return notLocked(key);
        }
        if (format == Format.json) {
            print(released, format, admin, false);
            return 0;
        }
        for (LockRecord record : released) {
            out().println("Released '" + key + "' held " + record.mode().text(record.permits()) + " by node '" + record.nodeId()
                    + "', thread '" + record.threadName() + "', fencing token " + record.fencingToken()
                    + ", as asked by " + requestedBy);
        }
        return 0;
    }
}
