package io.github.lockmanager.admin;

import io.github.lockmanager.spi.LockRecord;

import java.time.Instant;
import java.util.List;

/**
 * The live locks of a client as one scan of the store found them.
 *
 * @param locks  sorted by key, level and node
 * @param takenAt when the scan was made (this JVM's clock)
 */
public record LockSnapshot(List<LockRecord> locks, Instant takenAt) {
    public LockSnapshot {
        locks = List.copyOf(locks);
    }

    /** The locks that {@code filter} matches, in the same order. */
    public List<LockRecord> matching(LockFilter filter) {
        return locks.stream().filter(filter::matches).toList();
    }
}
