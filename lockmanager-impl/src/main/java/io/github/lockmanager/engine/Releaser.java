package io.github.lockmanager.engine;

import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.TimeSource;
import io.github.lockmanager.spi.LockHandle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Releases this node's records in the store, and retries those whose release failed until it succeeds or the
 * lease has ended anyway. A release is cleanup that must happen even for an interrupted holder (abort and loss
 * interrupt it), so it runs with the interrupt flag set aside.
 */
final class Releaser {
    private static final Logger log = LoggerFactory.getLogger(Releaser.class);
    private final String nodeId;
    private final AcquisitionTable table;
    private final StoreCalls calls;
    private final Events events;
    private final Losses losses;
    private final TimeSource time;
    private final HandOffs handOffs;
    private final PendingReleases pending;
    private final KeptLocks kept;
    private final HandOffSweep sweep;

    Releaser(EngineSettings settings, AcquisitionTable table, StoreCalls calls, Events events, Losses losses,
             HandOffs handOffs, ScheduledExecutorService keeperThread) {
        this.nodeId = settings.nodeId();
        this.table = table;
        this.calls = calls;
        this.events = events;
        this.losses = losses;
        this.time = settings.timeSource();
        this.handOffs = handOffs;
        this.pending = new PendingReleases(settings, calls);
        this.kept = new KeptLocks(settings, calls, pending);
        this.sweep = new HandOffSweep(settings, handOffs, pending, losses, keeperThread);
    }

    /** The node whose records this releases. */
    String nodeId() {
        return nodeId;
    }

    /**
     * Gives back one hold of {@code acquisition}, from any thread; the last one releases it, or leaves its record to
     * a thread of this node that waits for the key ({@link HandOffs}). {@code false} if it was not held: nothing
     * was given back.
     */
    boolean dropHold(Acquisition acquisition) {
        // the re-entrant unlock stops here: kept this small so that it inlines into the resource's close and unlock
        int had = acquisition.dropHold();
        if (had == 1) {
            letGo(acquisition);
        }
        return had > 0;
    }

    /** The store or the clock says {@code acquisition} is no longer ours: ends it and tells its holder. */
    void lose(Acquisition acquisition, LockLossReason reason) {
        if (losses.lose(acquisition, reason) && reason == LockLossReason.RENEWAL_UNCONFIRMED
                && !table.isGuarded(acquisition)) {
            // the record may still be ours in the store: remove it once the store answers again (for a guarded one,
            // once its guard closes: until then its work keeps the record busy, and the release would wait for it)
            pending.later(acquisition.handle(), acquisition.confirmedUntilNanos());
        }
    }

    /**
     * Whether {@code acquisition} is lost, declaring it so first if it is held and its lease may have ended by this
     * node's clock with no renewal confirmed: the holder learns it when it asks, not at the watchdog's next look,
     * which a pause of this process (a long collection, a stopped VM) delays as much as the holder.
     */
    boolean isLost(Acquisition acquisition) {
        if (acquisition.isHeld() && leaseMayHaveEnded(acquisition)) {
            lose(acquisition, LockLossReason.RENEWAL_UNCONFIRMED);
        }
        // a loss marked right now ends the hold before it marks it lost: wait for it rather than answer false
        return acquisition.isLost() || !acquisition.isHeld() && acquisition.isLostSettled();
    }

    /**
     * What {@link io.github.lockmanager.LockResource#remainingLease} answers for a hold of {@code acquisition}: the
     * time until the watchdog's rule would declare it lost, or zero once it is lost or no longer held.
     */
    Duration remainingLease(Acquisition acquisition) {
        if (isLost(acquisition) || !acquisition.isHeld()) {
            return Duration.ZERO;
        }
        long left = acquisition.leases().untilAtRisk(acquisition.confirmedUntilNanos(), time.nanoTime());
        return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    /** The watchdog's rule, read now: the lease ends within the loss margin, or has ended, unconfirmed. */
    private boolean leaseMayHaveEnded(Acquisition acquisition) {
        return acquisition.leases().atRisk(acquisition.confirmedUntilNanos(), time.nanoTime());
    }

    /**
     * The last hold of {@code acquisition} was given back: its record is handed over or released. One whose lease may
     * have ended while it was held is neither: its holder is told it lost the lock, and the record is released only
     * if it is still its own (a store in this JVM's memory answers that with the release itself: {@link StoreCalls}).
     */
    private void letGo(Acquisition acquisition) {
        if (calls.mayHaveOutlived(acquisition.leases(), acquisition.confirmedUntilNanos())) {
            losses.lostBeforeRelease(acquisition, LockLossReason.RENEWAL_UNCONFIRMED);
            release(acquisition, acquisition.confirmedUntilNanos());
            return;
        }
        HandOffs.Parked parked = handOffs.park(acquisition);
        if (parked != null && sweep.soon()) {
            // the waiter wakes now and takes the record over; no thread could claim it while the acquisition was in
            // the table
            table.retire(acquisition);
            events.released(acquisition);
            if (log.isDebugEnabled()) {
                log.debug("Lock {} of node '{}' let go of with a thread of this node waiting: its record is handed "
                        + "over to the next acquisition of the key here (hand-off {} in a row)", acquisition, nodeId,
                        parked.inARow());
            }
            return;
        }
        if (parked != null) {
            handOffs.unclaim(parked);
        }
        release(acquisition, acquisition.confirmedUntilNanos());
    }

    /**
     * The store refused a hand-off of {@code parked}: the giver's record was no longer its own (force-released, or
     * lost by the store) when its holder let go of it. Its holder is told now, as a release would have told it.
     */
    void handOffRefused(HandOffs.Parked parked) {
        losses.lostBeforeRelease(parked.giver(), LockLossReason.NOT_OWNED);
    }

    /**
     * Drops what {@link HandOffs} kept of holders that ended some other way than by {@link #dropHold} (lost,
     * reclaimed, released at shutdown).
     */
    void forgetEndedHandOffs() {
        handOffs.forgetEnded(table);
    }

    /**
     * Gives back one hold of {@code acquisition}; the last one leaves its key locked in the store until
     * {@code atLeast} after the grant, or releases it if that time has passed.
     */
    void dropHoldKeeping(Acquisition acquisition, Duration atLeast) {
        if (acquisition.dropHold() != 1) {
            return;
        }
        long remainingNanos = acquisition.grantedAtNanos() + atLeast.toNanos() - time.nanoTime();
        if (remainingNanos <= 0) {
            release(acquisition, acquisition.confirmedUntilNanos());
            return;
        }
        keep(acquisition, remainingNanos);
    }

    /** Keeps an ended acquisition's key locked for {@code remainingNanos} ({@link KeptLocks}), out of the table. */
    private void keep(Acquisition acquisition, long remainingNanos) {
        kept.keep(acquisition, remainingNanos);
        table.retire(acquisition);
        events.released(acquisition);
    }

    /** Releases the kept locks whose time has come by {@code nowNanos}. */
    void releaseKept(long nowNanos) {
        kept.releaseDue(nowNanos);
    }

    /**
     * Releases an ended acquisition: removes its record if the record is still this acquisition's (or queues that
     * until {@code leaseEndNanos} if the store fails), then takes it out of the table, which wakes this node's
     * waiters only once the store will let them in.
     */
    void release(Acquisition acquisition, long leaseEndNanos) {
        boolean ours = pending.release(acquisition.handle(), leaseEndNanos);
        if (!ours && acquisition.wasGranted()) {
            // told before the entry leaves the table, so that a task learns of the loss before its lock shows as gone;
            // a grant given back unused (it came too late, or during shutdown) never reached a holder: nothing was lost
            losses.lostBeforeRelease(acquisition, LockLossReason.NOT_OWNED);
        }
        table.retire(acquisition);
        if (!acquisition.isLost()) {
            events.released(acquisition);
        }
    }

    /** Lends {@code acquisition} to guarded work: renewal leaves it alone until {@link #endLoan}. */
    void lend(Acquisition acquisition) throws LockLostException {
        isLost(acquisition);
        table.guard(acquisition);
        if (!acquisition.isHeld()) {
            table.unguard(acquisition);
            throw new LockLostException("lock " + acquisition + " on node '" + nodeId + "' is no longer held ("
                    + (acquisition.isLost() ? "lost" : "given back") + "): no work can be guarded by it");
        }
    }

    /** The guarded work let go of {@code acquisition}. */
    void endLoan(Acquisition acquisition) {
        table.unguard(acquisition);
        if (acquisition.isLost()) {
            // lost while guarded: its record may still be ours, and only now can a release get at it
            pending.later(acquisition.handle(), acquisition.confirmedUntilNanos());
        }
    }

    /** An acquisition whose record guarded work removed: out of the table, without a store call. */
    void releasedByWork(Acquisition acquisition) {
        table.retire(acquisition);
        events.released(acquisition);
        if (log.isDebugEnabled()) {
            log.debug("Lock {} of node '{}' was released by the work it guarded", acquisition, nodeId);
        }
    }

    /** Ends and releases the acquisition of a holder thread that died without unlocking. */
    void reclaim(Acquisition acquisition) {
        if (!acquisition.end()) {
            return;
        }
        log.warn("{} holding lock '{}' on node '{}' ({} holds not given back): releasing it",
                acquisition.holderGone(), acquisition.key().name(), nodeId, acquisition.holds());
        release(acquisition, acquisition.confirmedUntilNanos());
    }

    /** Retries the release of {@code handle} until it succeeds or {@code leaseEndNanos} has passed. */
    void releaseLater(LockHandle handle, long leaseEndNanos) {
        pending.later(handle, leaseEndNanos);
    }

    boolean isPending(LockHandle handle) {
        return pending.contains(handle);
    }

    /** Tries a pending release at once; {@code true} if the record is no longer there for {@code handle}. */
    boolean releaseNow(LockHandle handle) {
        return pending.releaseNow(handle);
    }

    /** One attempt at every pending release; those whose lease has ended by {@code nowNanos} are given up. */
    void retryPending(long nowNanos) {
        pending.retry(nowNanos);
    }

    /** The last attempt, at shutdown: parked and kept records released, then pending ones; the rest expire. */
    void retryPendingOnClose(long nowNanos) {
        sweep.releaseAll();
        kept.releaseOnClose(nowNanos);
        pending.retryOnClose(nowNanos);
    }
}
