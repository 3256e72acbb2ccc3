package io.github.lockmanager.engine;

import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.TimeSource;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Releases this node's records in the store, and retries those whose release failed until it succeeds or the
 * lease has ended anyway. A release is cleanup that must happen even for an interrupted holder (abort and loss
 * interrupt it), so it runs with the interrupt flag set aside.
 */
final class Releaser {
    private static final Logger log = LoggerFactory.getLogger(Releaser.class);
    /**
     * How long a record parked for a hand-off waits to be claimed before the keeper releases it, at its next sweep
     * (so within twice this). The waiter it was parked for is woken at once and claims it in microseconds; one that
     * gave up meanwhile (interrupted as it woke) leaves the key
     * locked that long.
     */
    static final long CLAIM_WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final String nodeId;
    private final LockStore store;
    /** See {@link LockStore#isInMemory()}: its release answers for the lease at once, with no clock to read first. */
    private final boolean inMemoryStore;
    private final AcquisitionTable table;
    private final StoreCalls calls;
    private final Events events;
    private final Losses losses;
    private final TimeSource time;
    private final HandOffs handOffs;
    /** The keeper's thread, which releases a record parked for a hand-off that no thread claimed in time. */
    private final ScheduledExecutorService keeperThread;
    /**
     * Whether a sweep of unclaimed records is scheduled: one sweep at a time, every claim window while records are
     * parked, rather than a task per hand-off, which a hot key would make thousands of a second.
     */
    private final AtomicBoolean sweepScheduled = new AtomicBoolean();
    /** Releases to retry, with the engine time after which the lease has ended anyway. */
    private final Map<LockHandle, Long> pending = new ConcurrentHashMap<>();
    /** Locks kept after their last hold ({@link #dropHoldKeeping}), to release when their time comes. */
    private final Map<LockHandle, Kept> kept = new ConcurrentHashMap<>();

    /** A kept lock: the engine time to release it at, and the end of its last confirmed lease. */
    private record Kept(long untilNanos, long leaseEndNanos) {
    }

    Releaser(EngineSettings settings, AcquisitionTable table, StoreCalls calls, Events events, Losses losses,
             HandOffs handOffs, ScheduledExecutorService keeperThread) {
        this.nodeId = settings.nodeId();
        this.store = settings.store();
        this.inMemoryStore = store.isInMemory();
        this.table = table;
        this.calls = calls;
        this.events = events;
        this.losses = losses;
        this.time = settings.timeSource();
        this.handOffs = handOffs;
        this.keeperThread = keeperThread;
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
            releaseLater(acquisition.handle(), acquisition.confirmedUntilNanos());
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
        return acquisition.isLost();
    }

    /** The watchdog's rule, read now: the lease ends within the loss margin, or has ended, unconfirmed. */
    private boolean leaseMayHaveEnded(Acquisition acquisition) {
        return acquisition.leases().atRisk(acquisition.confirmedUntilNanos(), time.nanoTime());
    }

    /**
     * The last hold of {@code acquisition} was given back: its record is handed over or released. One whose lease may
     * have ended while it was held is neither: its holder is told it lost the lock, and the record is released only
     * if it is still its own. A store in this JVM's memory answers that with the release itself.
     */
    private void letGo(Acquisition acquisition) {
        if (!inMemoryStore && leaseMayHaveEnded(acquisition)) {
            losses.lostBeforeRelease(acquisition, LockLossReason.RENEWAL_UNCONFIRMED);
            release(acquisition, acquisition.confirmedUntilNanos());
            return;
        }
        HandOffs.Parked parked = handOffs.park(acquisition);
        if (parked != null && sweepSoon()) {
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
     * Makes sure a sweep of unclaimed parked records runs within {@link #CLAIM_WINDOW_NANOS}; {@code false} if the
     * keeper is shutting down and none will.
     */
    private boolean sweepSoon() {
        if (!sweepScheduled.compareAndSet(false, true)) {
            return true;
        }
        try {
            keeperThread.schedule(this::sweepUnclaimed, CLAIM_WINDOW_NANOS, TimeUnit.NANOSECONDS);
            return true;
        } catch (RejectedExecutionException e) {
            sweepScheduled.set(false);
            return false;
        }
    }

    /** Releases the records parked for longer than the claim window; runs again while any are parked. */
    private void sweepUnclaimed() {
        // cleared first: a record parked from here on either is seen below or schedules the next sweep itself
        sweepScheduled.set(false);
        for (HandOffs.Parked parked : handOffs.unclaimParkedBy(System.nanoTime() - CLAIM_WINDOW_NANOS)) {
            log.debug("Lock '{}' of node '{}' was kept for a thread of this node that waited for it, which did not take "
                    + "it within {} ms: releasing it", parked.handle().key().name(), nodeId,
                    TimeUnit.NANOSECONDS.toMillis(CLAIM_WINDOW_NANOS));
            releaseUnclaimed(parked);
        }
        if (handOffs.anyParked()) {
            sweepSoon();
        }
    }

    /** Releases a record parked for a hand-off that no thread claimed; its holder had let go of it in time. */
    private void releaseUnclaimed(HandOffs.Parked parked) {
        LockHandle handle = parked.handle();
        if (!releaseRecord(handle, parked.leaseEndNanos())) {
            log.warn("Lock '{}' of node '{}', kept for a waiter of this node that did not take it, was no longer this "
                    + "node's in the store when released (its lease had ended); nothing of anyone else's was touched",
                    handle.key().name(), nodeId);
        }
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

    /**
     * Keeps an ended acquisition's key locked for {@code remainingNanos} with no one holding it, then takes the
     * acquisition out of the table. A lease that ends sooner is extended in the store (a renewal, owner-checked); one
     * that ends later stays as it is and the record is released when the time has come, at the keeper's first tick
     * after it. A lease is never shortened: a store may not honour that (on HBase the older, longer-lived owner cell
     * would show again), and a node that dies meanwhile then leaves the key locked longer, never shorter.
     */
    private void keep(Acquisition acquisition, long remainingNanos) {
        LockHandle handle = acquisition.handle();
        long untilNanos = time.nanoTime() + remainingNanos;
        if (untilNanos - acquisition.confirmedUntilNanos() <= 0) {
            kept.put(handle, new Kept(untilNanos, acquisition.confirmedUntilNanos()));
            if (log.isDebugEnabled()) {
                log.debug("Lock '{}' of node '{}' stays locked for {} more after its holder closed it, then is released",
                        handle.key().name(), nodeId, Duration.ofNanos(remainingNanos));
            }
        } else {
            extend(handle, Duration.ofNanos(remainingNanos));
        }
        table.retire(acquisition);
        events.released(acquisition);
    }

    private void extend(LockHandle handle, Duration remaining) {
        try {
            HoldState state = calls.run(() -> store.renew(List.of(handle), remaining)).get(handle);
            if (state == HoldState.LOST) {
                log.warn("Lock '{}' of node '{}' was no longer this node's in the store when it was to be kept locked "
                        + "for {} more (its lease had ended or it was lost); the key is free", handle.key().name(),
                        nodeId, remaining);
            } else if (log.isDebugEnabled()) {
                log.debug("Lock '{}' of node '{}' stays locked for {} more after its holder closed it",
                        handle.key().name(), nodeId, remaining);
            }
        } catch (LockManagerException | RuntimeException e) {
            log.warn("Could not keep lock '{}' of node '{}' locked for {} more in store {}: {}. The key stays locked "
                    + "until its last renewed lease ends", handle.key().name(), nodeId, remaining, store, e.toString());
        }
    }

    /** Releases the kept locks whose time has come by {@code nowNanos}; a failed release is retried as any other. */
    void releaseKept(long nowNanos) {
        for (Iterator<Map.Entry<LockHandle, Kept>> it = kept.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<LockHandle, Kept> entry = it.next();
            if (nowNanos - entry.getValue().untilNanos() < 0) {
                continue;
            }
            it.remove();
            LockHandle handle = entry.getKey();
            try {
                calls.release(handle);
            } catch (LockManagerException | RuntimeException e) {
                log.warn("Could not release kept lock '{}' of node '{}' in store {}: {}. Retrying in the background "
                        + "until its lease ends", handle.key().name(), nodeId, store, e.toString());
                releaseLater(handle, entry.getValue().leaseEndNanos());
            }
        }
    }

    /**
     * Releases an ended acquisition: removes its record if the record is still this acquisition's (or queues that
     * until {@code leaseEndNanos} if the store fails), then takes it out of the table, which wakes this node's
     * waiters only once the store will let them in.
     */
    void release(Acquisition acquisition, long leaseEndNanos) {
        boolean ours = releaseRecord(acquisition.handle(), leaseEndNanos);
        table.retire(acquisition);
        if (!ours) {
            losses.lostBeforeRelease(acquisition, LockLossReason.NOT_OWNED);
        }
        if (!acquisition.isLost()) {
            events.released(acquisition);
        }
    }

    /**
     * Removes the record of {@code handle} if it is still that handle's, or queues that until {@code leaseEndNanos};
     * {@code false} if the store answered that it was no longer that handle's.
     */
    private boolean releaseRecord(LockHandle handle, long leaseEndNanos) {
        try {
            return calls.release(handle);
        } catch (LockManagerException | RuntimeException e) {
            log.warn("Could not release lock '{}' of node '{}' in store {}: {}. Retrying in the background until its "
                    + "lease ends", handle.key().name(), nodeId, store, e.toString());
            releaseLater(handle, leaseEndNanos);
            return true;
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
            releaseLater(acquisition.handle(), acquisition.confirmedUntilNanos());
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
        log.warn("Thread '{}' died holding lock '{}' on node '{}' ({} unbalanced holds): releasing it",
                acquisition.holderName(), acquisition.key().name(), nodeId, acquisition.holds());
        release(acquisition, acquisition.confirmedUntilNanos());
    }

    /** Retries the release of {@code handle} until it succeeds or {@code leaseEndNanos} has passed. */
    void releaseLater(LockHandle handle, long leaseEndNanos) {
        pending.merge(handle, leaseEndNanos, Math::max);
    }

    boolean isPending(LockHandle handle) {
        return pending.containsKey(handle);
    }

    /** Tries a pending release at once; {@code true} if the record is no longer there for {@code handle}. */
    boolean releaseNow(LockHandle handle) {
        try {
            calls.release(handle);
            pending.remove(handle);
            return true;
        } catch (LockManagerException | RuntimeException e) {
            log.warn("Release of lock '{}' of node '{}' failed again: {}", handle.key().name(), nodeId, e.toString());
            return false;
        }
    }

    /** One attempt at every pending release; those whose lease has ended by {@code nowNanos} are given up. */
    void retryPending(long nowNanos) {
        for (Iterator<Map.Entry<LockHandle, Long>> it = pending.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<LockHandle, Long> entry = it.next();
            LockHandle handle = entry.getKey();
            try {
                store.release(handle);
                it.remove();
                log.info("Pending release of lock '{}' of node '{}' done", handle.key().name(), nodeId);
            } catch (LockManagerException | RuntimeException e) {
                if (nowNanos - entry.getValue() >= 0) {
                    it.remove();
                    log.warn("Giving up releasing lock '{}' of node '{}' ({}): its lease has ended, so the store no "
                            + "longer counts it", handle.key().name(), nodeId, e.toString());
                }
            }
        }
    }

    /** The last attempt, at shutdown: what still fails is left to expire. */
    void retryPendingOnClose(long nowNanos) {
        for (HandOffs.Parked parked : handOffs.unclaimAll()) {
            releaseUnclaimed(parked);
        }
        releaseKept(nowNanos);
        if (!kept.isEmpty()) {
            log.info("Node '{}' closes with {} locks kept after their holders closed them: they stay locked until "
                    + "their leases end", nodeId, kept.size());
        }
        retryPending(nowNanos);
        if (!pending.isEmpty()) {
            log.warn("Node '{}' closes with {} lock records it could not release: they expire after their lease",
                    nodeId, pending.size());
        }
    }
}
