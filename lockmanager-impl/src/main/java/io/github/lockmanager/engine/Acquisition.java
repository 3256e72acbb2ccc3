package io.github.lockmanager.engine;

import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockRecord;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.function.IntUnaryOperator;

/**
 * One acquisition of one key by one owner of this node (a thread; a task's is a {@link TaskAcquisition}), from the
 * store call that asks for it to the moment it ends and then is gone (its record released in the store, or known not to be ours, and the entry out of the
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
 * <p>A held lock costs heap for as long as it is held, so this keeps no more than it needs: what it shows of its
 * holder and grant is its superclass's ({@link HeldGrant}), and it has no latch.
 */
class Acquisition extends HeldGrant {
    private static final int ACQUIRING = 0;
    private static final int ENDED = -1;
    /** The last hold is being given back by guarded work that removes the record itself ({@code HoldResource.Guard}). */
    private static final int RELEASING = -2;
    private static final VarHandle HOLDS;

    static {
        try {
            HOLDS = MethodHandles.lookup().findVarHandle(Acquisition.class, "holds", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The manager's default policy, or the one of the lease this acquisition was asked with: shared, not copied. */
    private final LeasePolicy leases;
    /** {@link #ACQUIRING}, {@link #ENDED}, or the number of holds of a held acquisition (at least 1). */
    private volatile int holds = ACQUIRING;
    private volatile boolean gone;
    /** Threads in {@link #awaitGone}; {@link #markGone} takes the monitor to wake them only when there are any. */
    private volatile int goneWaiters;
    private volatile boolean lost;
    private boolean abortDelivered;
    /** An exclusive acquisition of {@code holder}; {@link ModeAcquisition} is one in another mode. */
    Acquisition(LockHandle handle, Thread holder, LeasePolicy leases) {
        this(handle, holder, holder.getName(), leases);
    }

    /** An acquisition of a holder that is {@code holder}, or of a task (no thread) when {@code holder} is null. */
    Acquisition(LockHandle handle, Thread holder, String holderName, LeasePolicy leases) {
        super(handle, holder, holderName);
        this.leases = leases;
    }

    /** The timing rules of this acquisition's lease. */
    LeasePolicy leases() {
        return leases;
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

    /** Whether the holder still needs the lock: its thread is alive (a task's: it says it is active). */
    boolean isHolderAlive() {
        Thread t = get();
        return t != null && t.isAlive();
    }

    /** Who held this acquisition and why it no longer needs it, for the log of its reclaim. */
    String holderGone() {
        return "Thread '" + holderName() + "' died";
    }

    /** Who holds it, for messages. */
    String holderText() {
        return "thread '" + holderName() + "'";
    }

    /** An abort was asked for: a task is told here, a thread is interrupted instead ({@link Delivery}). */
    void abortRequested(String nodeId) {
    }

    /** The lock was lost, and the loss listener has been called: a task is told here. */
    void toldLost(String nodeId, LockLossReason reason) {
    }

    /** The store granted the lock at {@code grantedAtNanos}: one hold, lease known until {@code confirmedUntilNanos}. */
    void grant(LockRecord record, long grantedAtNanos, long confirmedUntilNanos) {
        recordGrant(record, grantedAtNanos, confirmedUntilNanos);
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

    /**
     * Ends a held acquisition as lost; {@code true} if this call did it. Under the monitor, so that
     * {@link #isLostSettled} never sees it ended and not yet marked lost.
     */
    synchronized boolean loseIfHeld() {
        if (updateHeld(h -> ENDED) == 0) {
            return false;
        }
        lost = true;
        return true;
    }

    /**
     * Whether it is lost, once a loss being marked at this moment ({@link #loseIfHeld}) is done: for a holder that asks
     * while the keeper ends its hold, which {@link #isLost} alone could answer {@code false} in between.
     */
    synchronized boolean isLostSettled() {
        return lost;
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

    boolean isLost() {
        return lost;
    }

    int holds() {
        return Math.max(holds, 0);
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
        return "'" + key().name() + "' (" + key().level() + (mode() == LockMode.EXCLUSIVE ? "" : ", " + mode())
                + ") held by " + holderText();
    }
}
