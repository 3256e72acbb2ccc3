package io.github.lockmanager.engine;

import io.github.lockmanager.Lock;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;

import java.lang.ref.WeakReference;
import java.time.Instant;

/**
 * What an {@link Acquisition} shows of itself: its record's handle, its holder (it is itself the weak reference to its
 * holder thread, one object instead of two), and of the store's grant only the numbers a {@link Lock} shows (no
 * record, no {@link Instant}s, no strings a database driver made), since a held lock costs heap for as long as it is
 * held. The hold count and the lifecycle are the subclass's.
 */
abstract class HeldGrant extends WeakReference<Thread> {
    private static final LockStatus[] STATUSES = LockStatus.values();

    private final LockHandle handle;
    private final String holderName;
    /**
     * What the store's record of the grant said; written before the grant publishes them by setting {@link #holds}.
     * The status is kept as its ordinal + 1 (0 until granted) and the expiry as the time from the lock time, which a
     * lease of at most a day ({@link LeasePolicy#LONGEST}) keeps within an int: 8 bytes less per held lock.
     */
    private byte grantedStatus;
    private int grantedLeaseMillis;
    private long fencingToken;
    private long lockTimeMillis;
    /** Engine time of the grant, for how long it has been held. */
    private long grantedAtNanos;
    /** Engine time until which the store's lease is known to last. */
    private volatile long confirmedUntilNanos;

    HeldGrant(LockHandle handle, Thread holder, String holderName) {
        super(holder);
        this.handle = handle;
        this.holderName = holderName;
    }

    LockHandle handle() {
        return handle;
    }

    LockKey key() {
        return handle.key();
    }

    /** The holding thread, or {@code null} once it has been collected. */
    Thread holder() {
        return get();
    }

    String holderName() {
        return holderName;
    }

    boolean isHeldBy(Thread thread) {
        // not get() == thread: refersTo skips get()'s keep-alive read barrier, and every re-entry and unlock asks
        // this (a faster re-entry in JMH, and a smaller compiled lock)
        return refersTo(thread);
    }

    abstract LockMode mode();

    /** For a {@link LockMode#PERMIT} acquisition, how many permits the key was asked for; else 0. */
    abstract int permits();

    /** What the store's record of a grant at {@code grantedAtNanos} says; lease known until {@code confirmedUntilNanos}. */
    final void recordGrant(LockRecord record, long grantedAtNanos, long confirmedUntilNanos) {
        grantedStatus = (byte) (record.status().ordinal() + 1);
        fencingToken = record.fencingToken();
        lockTimeMillis = record.lockTime().toEpochMilli();
        long leaseMillis = record.expirationTime().toEpochMilli() - lockTimeMillis;
        // a store's record spans the lease it was asked for; only a broken one could overflow, and is shown capped
        grantedLeaseMillis = (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, leaseMillis));
        this.grantedAtNanos = grantedAtNanos;
        this.confirmedUntilNanos = confirmedUntilNanos;
    }

    /**
     * Whether the store's grant reached this acquisition: one released because the grant came too late to use, or
     * at shutdown while in flight, never was.
     */
    boolean wasGranted() {
        return grantedStatus != 0;
    }

    /** The grant's fencing token; for the holder, or for a thread that saw this acquisition held. */
    long fencingToken() {
        return fencingToken;
    }

    /** The lock as the store granted it to {@code nodeId}; for the holder, or for a thread that saw it held. */
    Lock grantedLock(String nodeId) {
        return new Lock(handle.key().name(), handle.key().level(), nodeId, holderName, Instant.ofEpochMilli(lockTimeMillis),
                Instant.ofEpochMilli(lockTimeMillis + grantedLeaseMillis), STATUSES[grantedStatus - 1], fencingToken,
                mode(), permits());
    }

    long grantedAtNanos() {
        return grantedAtNanos;
    }

    long confirmedUntilNanos() {
        return confirmedUntilNanos;
    }

    /** Moves the known end of the lease forward, never back: answers may arrive out of order. */
    synchronized void confirmUntil(long nanos) {
        if (nanos - confirmedUntilNanos > 0) {
            confirmedUntilNanos = nanos;
        }
    }
}
