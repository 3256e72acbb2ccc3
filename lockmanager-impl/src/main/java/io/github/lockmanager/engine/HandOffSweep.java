package io.github.lockmanager.engine;

import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.spi.LockHandle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Releases records parked for a hand-off ({@link HandOffs}) that no thread of this node claimed within the claim
 * window: one sweep at a time on the keeper's thread, every claim window while records are parked, rather than a
 * task per hand-off, which a hot key would make thousands of a second.
 */
final class HandOffSweep {
    private static final Logger log = LoggerFactory.getLogger(HandOffSweep.class);
    /**
     * How long a record parked for a hand-off waits to be claimed before the keeper releases it, at its next sweep
     * (so within twice this). The waiter it was parked for is woken at once and claims it in microseconds; one that
     * gave up meanwhile (interrupted as it woke) leaves the key locked that long.
     */
    static final long CLAIM_WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final String nodeId;
    private final HandOffs handOffs;
    private final PendingReleases pending;
    private final Losses losses;
    private final ScheduledExecutorService keeperThread;
    private final AtomicBoolean scheduled = new AtomicBoolean();

    HandOffSweep(EngineSettings settings, HandOffs handOffs, PendingReleases pending, Losses losses,
                 ScheduledExecutorService keeperThread) {
        this.nodeId = settings.nodeId();
        this.handOffs = handOffs;
        this.pending = pending;
        this.losses = losses;
        this.keeperThread = keeperThread;
    }

    /**
     * Makes sure a sweep of unclaimed parked records runs within {@link #CLAIM_WINDOW_NANOS}; {@code false} if the
     * keeper is shutting down and none will.
     */
    boolean soon() {
        if (!scheduled.compareAndSet(false, true)) {
            return true;
        }
        try {
            keeperThread.schedule(this::sweep, CLAIM_WINDOW_NANOS, TimeUnit.NANOSECONDS);
            return true;
        } catch (RejectedExecutionException e) {
            scheduled.set(false);
            return false;
        }
    }

    /** Releases the records parked for longer than the claim window; runs again while any are parked. */
    private void sweep() {
        // cleared first: a record parked from here on either is seen below or schedules the next sweep itself
        scheduled.set(false);
        for (HandOffs.Parked parked : handOffs.unclaimParkedBy(System.nanoTime() - CLAIM_WINDOW_NANOS)) {
            log.debug("Lock '{}' of node '{}' was kept for a thread of this node that waited for it, which did not take "
                    + "it within {} ms: releasing it", parked.handle().key().name(), nodeId,
                    TimeUnit.NANOSECONDS.toMillis(CLAIM_WINDOW_NANOS));
            release(parked);
        }
        if (handOffs.anyParked()) {
            soon();
        }
    }

    /** At shutdown: releases every parked record at once. */
    void releaseAll() {
        for (HandOffs.Parked parked : handOffs.unclaimAll()) {
            release(parked);
        }
    }

    /** Releases a record parked for a hand-off that no thread claimed; its holder had let go of it in time. */
    private void release(HandOffs.Parked parked) {
        LockHandle handle = parked.handle();
        if (!pending.release(handle, parked.leaseEndNanos())) {
            // its holder let go of it in time, but the store had already taken it away (force-released, lost)
            losses.lostBeforeRelease(parked.giver(), LockLossReason.NOT_OWNED);
        }
    }
}
