package io.github.lockmanager.engine;

import io.github.lockmanager.Lock;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.IntUnaryOperator;

/**
 * One acquisition of one key by one owner of this node (a thread; a task's is a {@link TaskAcquisition}), from the store call that asks for it to the moment
 * it ends and then is gone (its record released in the store, or known not to be ours, and the entry out of the
 * local table: {@link AcquisitionTable#retire}). Between the two, threads of this node still see the key as held
 * here, so a local waiter wakes only when the store will let it in. The local table maps each key to at most one.
 *
 * <p>It ends in one of four ways, each with one verb: {@code release} ({@link Releaser}: the last hold was given
 * back, or the manager gave it back for its holder at shutdown or because it came too late to use),
 * {@code reclaim} ({@link Releaser}: the holder thread died), {@code lose} ({@link Delivery}: the store or the
 * clock says it is no longer ours) and {@code abandon} ({@link Acquirer}: the store did not grant it).
 *
 * <p>The hold count and the state share one field changed by compare-and-set, so a re-entry and its unlock cost
 * one atomic update each and no monitor. The rarer changes (abort delivery, "gone") are under this object's
 * monitor, which waiters for "gone" also wait on; no store I/O ever happens under it.
 *
 * <p>A held lock costs heap for as long as it is held, so this keeps no more than it needs: it is itself the weak
 * reference to its holder thread (one object instead of two), keeps of the store's record of the grant only the
 * numbers it shows (no record, no {@link Instant}s, no strings a database driver made), and no latch.
 */
class Acquisition extends WeakReference<Thread> {
    private static final int ACQUIRING = 0;
    private static final int ENDED = -1;
    /** The last hold is being given back by guarded work that removes the record itself ({@code HoldResource.Guard}). */
    private static final int RELEASING = -2;
    private static final LockStatus[] STATUSES = LockStatus.values();
    private static final VarHandle HOLDS;

    static {
        try {
            HOLDS = MethodHandles.lookup().findVarHandle(Acquisition.class, "holds", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final LockHandle handle;
    private final String holderName;
    /** The manager's default policy, or the one of the lease this acquisition was asked with: shared, not copied. */
    private final LeasePolicy leases;
    /** {@link #ACQUIRING}, {@link #ENDED}, or the number of holds of a held acquisition (at least 1). */
    private volatile int holds = ACQUIRING;
    private volatile boolean gone;
    /** Threads in {@link #awaitGone}; {@link #markGone} takes the monitor to wake them only when there are any. */
    private volatile int goneWaiters;
    private volatile boolean lost;
    private boolean abortDelivered;
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

    /** An exclusive acquisition of {@code holder}; {@link ModeAcquisition} is one in another mode. */
    Acquisition(LockHandle handle, Thread holder, LeasePolicy leases) {
        this(handle, holder, holder.getName(), leases);
    }

    /** An acquisition of a holder that is {@code holder}, or of a task (no thread) when {@code holder} is null. */
    Acquisition(LockHandle handle, Thread holder, String holderName, LeasePolicy leases) {
        super(holder);
        this.handle = handle;
        this.holderName = holderName;
        this.leases = leases;
    }

    LockHandle handle() {
        return handle;
    }

    /** The timing rules of this acquisition's lease. */
    LeasePolicy leases() {
        return leases;
    }

    LockKey key() {
        return handle.key();
    }

    /** The holding thread, or {@code null} once it has been collected. */
    Thread holder() {
        return get();
    }

    LockMode mode() {
        return LockMode.EXCLUSIVE;
    }

    /** Where the table keeps it among the non-exclusive holds of its key; {@code null} for an exclusive one. */
    Place place() {
        return null;
    }

    /** For a {@link LockMode#PERMIT} acquisition, how many permits the key was asked for; else 0. */
    int permits() {
        return 0;
    }

    String holderName() {
        return holderName;
    }

    boolean isHeldBy(Thread thread) {
        // not get() == thread: refersTo skips get()'s keep-alive read barrier, and every re-entry and unlock asks
        // this (a faster re-entry in JMH, and a smaller compiled lock)
        return refersTo(thread);
    }

    /** Whether the holder still needs the lock: its thread is alive (a task's: it says it is active). */
    boolean isHolderAlive() {
        Thread t = get();
        return t != null && t.isAlive();
    }

    /** Who held this acquisition and why it no longer needs it, for the log of its reclaim. */
    String holderGone() {
        return "Thread '" + holderName + "' died";
    }

    /** Who holds it, for messages. */
    String holderText() {
        return "thread '" + holderName + "'";
    }

    /** An abort was asked for: a task is told here, a thread is interrupted instead ({@link Delivery}). */
    void abortRequested(String nodeId) {
    }

    /** The lock was lost, and the loss listener has been called: a task is told here. */
    void toldLost(String nodeId, LockLossReason reason) {
    }

    /** The store granted the lock at {@code grantedAtNanos}: one hold, lease known until {@code confirmedUntilNanos}. */
    void grant(LockRecord record, long grantedAtNanos, long confirmedUntilNanos) {
        grantedStatus = (byte) (record.status().ordinal() + 1);
        fencingToken = record.fencingToken();
        lockTimeMillis = record.lockTime().toEpochMilli();
        long leaseMillis = record.expirationTime().toEpochMilli() - lockTimeMillis;
        // a store's record spans the lease it was asked for; only a broken one could overflow, and is shown capped
        grantedLeaseMillis = (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, leaseMillis));
        this.grantedAtNanos = grantedAtNanos;
        this.confirmedUntilNanos = confirmedUntilNanos;
        // only the acquiring thread changes an acquisition that is not yet held, so no compare-and-set; the release
        // write publishes the fields above to whoever reads the hold count
        if (holds != ACQUIRING) {
            throw new IllegalStateException("grant of " + this + " with holds " + holds);
        }
        HOLDS.setRelease(this, 1);
    }

    /** Adds a re-entrant hold; {@code false} if this acquisition has ended. */
    boolean addHold() {
        return updateHeld(h -> h + 1) > 0;
    }

    /**
     * Gives back one hold: the hold count it had, or 0 if not held. From 1 this acquisition has now ended, and its
     * caller releases it.
     */
    int dropHold() {
        return updateHeld(h -> h == 1 ? ENDED : h - 1);
    }

    /**
     * Gives back one hold for guarded work that ends with it: the hold count it had, or 0 if not held. From 1 the
     * acquisition is then {@code RELEASING}: neither held (no renewal, re-entry or loss) nor ended, until
     * {@link #finishRelease} or {@link #restoreHold}.
     */
    int beginRelease() {
        return updateHeld(h -> h == 1 ? RELEASING : h - 1);
    }

    /** Ends a {@code RELEASING} acquisition; {@code false} if something else (shutdown) ended it meanwhile. */
    boolean finishRelease() {
        return HOLDS.compareAndSet(this, RELEASING, ENDED);
    }

    /** Makes a {@code RELEASING} acquisition held again with its one hold; {@code false} if it ended meanwhile. */
    boolean restoreHold() {
        return HOLDS.compareAndSet(this, RELEASING, 1);
    }

    /**
     * Ends this acquisition whatever its holds; {@code true} if this call ended it. One that guarded work is
     * releasing ends here too (shutdown, a dead holder): whoever ends it releases it, the work's own release then
     * finds the record gone.
     */
    boolean end() {
        return (int) HOLDS.getAndSet(this, ENDED) != ENDED;
    }

    /** Ends a held acquisition as lost; {@code true} if this call did it. */
    boolean loseIfHeld() {
        if (updateHeld(h -> ENDED) == 0) {
            return false;
        }
        lost = true;
        return true;
    }

    /**
     * Marks an acquisition its holder ended as lost after all (its release found the record no longer its own, or its
     * lease may have ended before it); {@code true} if this call did it. Only one thread calls this: the one that ended
     * it, or the one that took its record parked for a hand-off.
     */
    boolean markLostAfterEnd() {
        if (lost || holds != ENDED) {
            return false;
        }
        lost = true;
        return true;
    }

    /** Moves the hold count of a held acquisition to {@code next} of it; the count it had, or 0 if not held. */
    private int updateHeld(IntUnaryOperator next) {
        int h;
        do {
            h = holds;
            if (h <= 0) {
                return 0;
            }
        } while (!HOLDS.compareAndSet(this, h, next.applyAsInt(h)));
        return h;
    }

    /**
     * The record is released or not ours, and the entry is out of the table: waiters may try again. A waiter
     * counts itself before it reads {@link #gone}, and this reads the count after setting it, so either the
     * waiter sees "gone" or this sees the waiter; most acquisitions end with nobody waiting, and skip the monitor.
     */
    void markGone() {
        gone = true;
        if (goneWaiters > 0) {
            synchronized (this) {
                notifyAll();
            }
        }
    }

    boolean isGone() {
        return gone;
    }

    /** Whether a thread waits for this acquisition to be gone. */
    boolean isAwaited() {
        return goneWaiters > 0;
    }

    /** {@code true} the first time an abort is delivered, so a holder is interrupted once per acquisition. */
    synchronized boolean takeAbortDelivery() {
        if (!isHeld() || abortDelivered) {
            return false;
        }
        abortDelivered = true;
        return true;
    }

    boolean isHeld() {
        return holds > 0;
    }

    /** Whether guarded work is giving back its last hold: not held, but not ended either (it may be kept). */
    boolean isReleasing() {
        return holds == RELEASING;
    }

    /**
     * Whether the store's grant reached this acquisition: one released because the grant came too late to use, or
     * at shutdown while in flight, never was.
     */
    boolean wasGranted() {
        return grantedStatus != 0;
    }

    boolean isLost() {
        return lost;
    }

    int holds() {
        return Math.max(holds, 0);
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

    synchronized boolean awaitGone(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        goneWaiters++;
        try {
            while (!gone) {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(this, remaining);
            }
            return true;
        } finally {
            goneWaiters--;
        }
    }

    @Override
    public String toString() {
        return "'" + handle.key().name() + "' (" + handle.key().level() + (mode() == LockMode.EXCLUSIVE ? "" : ", " + mode())
                + ") held by " + holderText();
    }
}
