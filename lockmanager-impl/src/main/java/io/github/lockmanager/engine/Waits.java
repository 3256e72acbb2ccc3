package io.github.lockmanager.engine;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockEventListener.WaitResult;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.support.CallDeadline;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Blocking waits for a lock: try, and when refused wait for the holder to let go, then try again, until taken or the
 * wait's time is up. A holder of this node wakes its waiters when it lets go (and may hand its record over); one
 * elsewhere is waited for where the store announces releases, else polled with a jittered backoff up to the manager's
 * poll interval. Each wait is one event ({@link Events#waited}), its tries after the first no refusals of their own.
 */
final class Waits {
    private static final Logger log = LoggerFactory.getLogger(Waits.class);

    /** One try at the lock a wait is for. */
    @FunctionalInterface
    interface Attempt extends TryOnce<LockResource> {
    }

    /**
     * How many poll intervals a waiter whose store announces releases (PostgreSQL, Redis) waits for the announcement
     * before it asks the store again anyway, in case one was missed (the store's listener reconnected meanwhile): 5 s
     * at the default interval, so that such a waiter costs well under one store call a second.
     */
    private static final int ANNOUNCED_SAFETY_INTERVALS = 50;

    /** What a try that starts at its wait's deadline is given: enough for one round trip to a store nearby. */
    static final long LAST_TRY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final String nodeId;
    private final long pollNanos;
    private final AcquisitionTable table;
    private final KeyScope keys;
    private final LockStore store;
    private final Events events;

    Waits(EngineSettings settings, AcquisitionTable table, KeyScope keys, Events events) {
        this.nodeId = settings.nodeId();
        this.pollNanos = settings.waitPollInterval().toNanos();
        this.table = table;
        this.keys = keys;
        this.store = settings.store();
        this.events = events;
    }

    /**
     * Takes the lock through {@code attempt}, waiting up to {@code maxWait} for it.
     *
     * @throws AlreadyLockedException if {@code maxWait} passed first: the last refusal, with how long it waited
     * @throws InterruptedException   if the calling thread was interrupted before or while it waited
     */
    LockResource await(Attempt attempt, String key, LockLevel level, LockMode mode, Duration maxWait)
            throws LockException, InterruptedException {
        long budget = budgetNanos(maxWait);
        long start = System.nanoTime();
        WaitResult result = WaitResult.FAILED;
        try {
            LockResource lock = poll(attempt, level, mode, start, budget);
            result = WaitResult.ACQUIRED;
            return lock;
        } catch (AlreadyLockedException e) {
            result = WaitResult.TIMED_OUT;
            throw e;
        } catch (InterruptedException e) {
            result = WaitResult.INTERRUPTED;
            throw e;
        } catch (IllegalArgumentException | IllegalStateException | UnsupportedOperationException e) {
            result = null; // a call that was never a wait: bad input, a closed manager
            throw e;
        } finally {
            if (result != null) {
                events.waited(key, level, mode, Duration.ofNanos(System.nanoTime() - start), result);
            }
        }
    }

    private LockResource poll(Attempt attempt, LockLevel level, LockMode mode, long start, long budget)
            throws LockException, InterruptedException {
        PollBackoff backoff = new PollBackoff(pollNanos, ThreadLocalRandom.current());
        AlreadyLockedException refused = null;
        while (true) {
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for a lock");
            }
            try {
                return tryBefore(attempt, start, budget);
            } catch (LockManagerException failed) {
                throw afterDeadline(failed, refused, start, budget);
            } catch (AlreadyLockedException held) {
                refused = held;
                long waited = System.nanoTime() - start;
                long remaining = budget - waited;
                if (remaining <= 0) {
                    throw budget == 0 ? held : new AlreadyLockedException(held, Duration.ofNanos(waited));
                }
                long pause = Math.min(held.isHeldOnThisNode() ? pollNanos : backoff.nextNanos(), remaining);
                // the key refused may be an ancestor of a path lock's: that is the one to wait for
                pauseFor(held.getKey(), level, mode, held.isHeldOnThisNode(), pause, remaining);
            }
        }
    }

    /**
     * Waits for a release of {@code key}: a holder of this node's, up to {@code pauseNanos}; one elsewhere through the
     * store's announcement, up to {@link #ANNOUNCED_SAFETY_INTERVALS} poll intervals (within {@code remainingNanos}),
     * or, where the store announces nothing, a sleep of {@code pauseNanos}.
     */
    private void pauseFor(String key, LockLevel level, LockMode mode, boolean heldHere, long pauseNanos,
                          long remainingNanos) throws InterruptedException {
        events.waitingFor(key, level);
        if (heldHere && mode == LockMode.PERMIT) {
            table.awaitAnyPermitGone(level, key, System.nanoTime() + pauseNanos);
        } else if (heldHere) {
            table.awaitAllGone(level, key, System.nanoTime() + pauseNanos);
        } else if (!awaitRemoteRelease(key, level, Math.min(announcedPauseNanos(pollNanos), remainingNanos))) {
            TimeUnit.NANOSECONDS.sleep(pauseNanos);
        }
    }

    /**
     * How long a waiter, thread or task, waits for a store's announcement before it asks the store again anyway; the
     * poll interval is at most a day, so this never overflows.
     */
    static long announcedPauseNanos(long pollNanos) {
        return pollNanos * ANNOUNCED_SAFETY_INTERVALS;
    }

    private boolean awaitRemoteRelease(String key, LockLevel level, long pauseNanos) throws InterruptedException {
        try {
            return store.awaitRelease(keys.storeKey(level, key), Duration.ofNanos(pauseNanos));
        } catch (LockManagerException e) {
            log.debug("Node '{}' could not wait for a release of lock '{}' in store {}, so its waiter polls: {}",
                    nodeId, key, store, e.toString());
            return false;
        }
    }

    /**
     * One try, its store calls bounded by the wait's deadline ({@link CallDeadline}) so that a store held up by a
     * partition cannot keep the caller past {@code maxWait}; a try that starts at the deadline (the last, after a
     * pause that ran to it) is given {@link #LAST_TRY_NANOS} all the same. A wait without an end, or of one try, leaves
     * the store's operation timeout alone.
     */
    static <T> T tryBefore(TryOnce<T> attempt, long start, long budget) throws LockException {
        if (budget == 0 || budget == Long.MAX_VALUE) {
            return attempt.take();
        }
        CallDeadline.set(Math.max(start + budget, System.nanoTime() + LAST_TRY_NANOS));
        try {
            return attempt.take();
        } finally {
            CallDeadline.clear();
        }
    }

    /** One try of a wait, thread-bound or a task's. */
    @FunctionalInterface
    interface TryOnce<T> {
        T take() throws LockException;
    }

    /**
     * A store failure of a try: thrown as it is, unless the wait's time is up and the key was refused before, when the
     * wait ends as one that ran out (the failure most likely the try cut short at the deadline) with the failure kept.
     */
    static LockException afterDeadline(LockManagerException failed, AlreadyLockedException refused, long start,
                                       long budget) {
        long waited = System.nanoTime() - start;
        if (refused == null || waited < budget) {
            return failed;
        }
        AlreadyLockedException ranOut = new AlreadyLockedException(refused, Duration.ofNanos(waited));
        ranOut.addSuppressed(failed);
        return ranOut;
    }

    /** The wait's time in nanoseconds; one too long to count in nanoseconds has no end. */
    static long budgetNanos(Duration maxWait) {
        Require.notNull(maxWait, "maxWait");
        Require.argument(!maxWait.isNegative(), "maxWait must be zero or more, was %s", maxWait);
        try {
            return maxWait.toNanos();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }
}
