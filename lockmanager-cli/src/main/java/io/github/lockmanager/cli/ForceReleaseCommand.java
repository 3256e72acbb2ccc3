package io.github.lockmanager.cli;

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

    @Override
    int run(LockStore store) throws Exception {
        if (requestedBy.isBlank()) {
            throw new IllegalArgumentException("--by must name who asks");
        }
        List<LockRecord> released = admin(store).forceRelease(key, keyOptions.level, requestedBy);
        for (LockRecord record : released) {
            out().println("Released '" + key + "' held " + record.mode() + " by node '" + record.nodeId()
                    + "', thread '" + record.threadName() + "', fencing token " + record.fencingToken()
                    + ", as asked by " + requestedBy);
        }
        return released.isEmpty() ? notLocked(key) : 0;
    }
}
