package io.github.lockmanager.store.memory;

import io.github.lockmanager.LockStatus;
import io.github.lockmanager.TimeSource;
import io.github.lockmanager.spi.LockRecord;

import java.time.Instant;

/**
 * The wall-clock times of the in-memory store's records, derived from lease-clock readings: the wall clock is read
 * once, as its millisecond and the lease clock's reading at that millisecond's start, so a grant reads one clock, not
 * two, and an entry keeps no wall-clock times of its own. Stamps are for display (as {@link TimeSource#now()} is);
 * they keep the lease clock's pace, so a step of the system clock after the store was made does not show in them,
 * and a lock time and its expiry are exactly the lease apart. Thread-safe.
 */
final class WallStamps {
    private final long anchorMillis;
    private final long anchorMillisNanos;
    /**
     * The last lock time and expiry stamped, reused by records stamped in the same millisecond: a grant's record is
     * made on every acquisition, and making its two {@link Instant}s anew was a visible part of an in-memory
     * lock+unlock.
     * Read and written without synchronization: a {@link Stamp} is immutable, so a thread sees one or another whole.
     */
    private Stamp lockStamp = Stamp.NONE;
    private Stamp expiryStamp = Stamp.NONE;

    WallStamps(TimeSource time) {
        Instant anchor = time.now();
        this.anchorMillis = anchor.toEpochMilli();
        this.anchorMillisNanos = time.nanoTime() - anchor.getNano() % 1_000_000;
    }

    /** The wall-clock millisecond of the lease clock's reading {@code nanos}. */
    private long wallMillis(long nanos) {
        return anchorMillis + Math.floorDiv(nanos - anchorMillisNanos, 1_000_000);
    }

    /** A wall-clock millisecond and its {@link Instant}. */
    private record Stamp(long millis, Instant instant) {
        static final Stamp NONE = new Stamp(Long.MIN_VALUE, Instant.MIN);

        /** This stamp if it is of {@code millis}, else a new one. */
        Stamp of(long millis) {
            return millis == this.millis ? this : new Stamp(millis, Instant.ofEpochMilli(millis));
        }
    }

    /** The record a caller sees of {@code entry}. */
    LockRecord recordOf(HolderEntry entry) {
        Stamp lastLock = lockStamp;
        Stamp lock = lastLock.of(wallMillis(entry.lockNanos()));
        Stamp lastExpiry = expiryStamp;
        Stamp expiry = lastExpiry.of(wallMillis(entry.expiresAtNanos()));
        // written only when they change: threads on several cores would otherwise share the line on every grant
        if (lock != lastLock) {
            lockStamp = lock;
        }
        if (expiry != lastExpiry) {
            expiryStamp = expiry;
        }
        return new LockRecord(entry.handle(), entry.nodeId(), entry.threadName(), lock.instant(), expiry.instant(),
                entry.aborted() ? LockStatus.ABORT : LockStatus.RUNNING, entry.fencingToken(), entry.lockMode(),
                entry.permits());
    }
}
