package io.github.lockmanager.admin;

import io.github.lockmanager.LockWaiter;
import io.github.lockmanager.spi.LockRecord;

import java.time.Instant;
import java.util.List;

/**
 * The live locks of a client, and the requests of its fair waiters, as one scan of the store found them.
 *
 * @param locks   sorted by key, level and node
 * @param waiters per key, first in line first
 * @param takenAt when the scan was made (this JVM's clock)
 */
public record LockSnapshot(List<LockRecord> locks, List<LockWaiter> waiters, Instant takenAt) {
    public LockSnapshot {
        locks = List.copyOf(locks);
        waiters = List.copyOf(waiters);
    }

    /** A snapshot with no waiters. */
    public LockSnapshot(List<LockRecord> locks, Instant takenAt) {
        this(locks, List.of(), takenAt);
    }

    /** The locks that {@code filter} matches, in the same order. */
    public List<LockRecord> matching(LockFilter filter) {
        return locks.stream().filter(filter::matches).toList();
    }
}
