package io.github.lockmanager.engine;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.TimeSource;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.support.CallDeadline;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The one mechanism of every wait, a thread's or a task's ({@code Waits}): a try bounded by the wait's deadline, and
 * between tries a {@link Waiter} parked where it will be woken: in the {@link WaitQueue} of the key that refused it
 * when its holder is here, else watching the store's release announcements, with a timer as the safety net (or, where
 * the store announces nothing, a poll with a jittered backoff up to the manager's wait poll interval).
 */
final class Parking {
    private static final Logger log = LoggerFactory.getLogger(Parking.class);

    /** One try at the lock a wait is for. */
    @FunctionalInterface
    interface Attempt<T> {
        T take() throws LockException;
    }

    /**
     * How many poll intervals a waiter whose store announces releases (PostgreSQL, Redis) waits for the announcement
     * before it asks the store again anyway, in case one was missed (the store's listener reconnected meanwhile): 5 s
     * at the default interval, so that such a waiter costs well under one store call a second. It asks sooner when the
     * lease of the holder that refused it ends before then ({@link HeldUntil}): a holder that died announces nothing.
     */
    private static final int ANNOUNCED_SAFETY_INTERVALS = 50;
    /**
     * A waiter for a holder of this node is woken when that holder is gone; its timer is only a safety net, so it
     * looks again this many poll intervals later, which keeps many parked waiters from costing a try each per interval.
     * A permit waiter looks after one interval: one of several permit holders may leave before it is queued.
     */
    private static final int LOCAL_SAFETY_INTERVALS = 10;

    /** What a try that starts at its wait's deadline is given: enough for one round trip to a store nearby. */
    static final long LAST_TRY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final String nodeId;
    private final long pollNanos;
    private final LockStore store;
    private final Events events;
    private final WaitQueue queue;
    private final Requests requests;
    private final TimeSource time;
    /**
     * The last refusal a waiter kept, which the next waiter refused alike keeps too instead of one of its own: ten
     * thousand waiters of one held key keep one. A plain hint: a stale read only costs a copy.
     */
    private Waiter.Refusal lastRefusal;

    Parking(EngineSettings settings, WaitQueue queue, Requests requests, Events events) {
        this.nodeId = settings.nodeId();
        this.pollNanos = settings.waitPollInterval().toNanos();
        this.store = settings.store();
        this.events = events;
        this.queue = queue;
        this.requests = requests;
        this.time = settings.timeSource();
    }

    /**
     * One try of {@code waiter}, its store calls bounded by the wait's deadline ({@link CallDeadline}) so that a store
     * held up by a partition cannot keep the caller past its wait; a try that starts at the deadline (the last, after a
     * pause that ran to it) is given {@link #LAST_TRY_NANOS} all the same. A wait without an end, or of one try, leaves
     * the store's operation timeout alone.
     */
    <T> T tryOnce(Waiter waiter, Attempt<T> attempt) throws LockException {
        if (waiter.triedBefore) {
            events.waitingFor(waiter.refusedKey().name(), waiter.refusedKey().level());
        }
        waiter.triedBefore = true;
        armLine(waiter);
        long budget = waiter.budgetNanos;
        try {
            if (budget == 0 || budget == Long.MAX_VALUE) {
                return take(waiter, attempt);
            }
            CallDeadline.set(Math.max(waiter.startNanos + budget, System.nanoTime() + LAST_TRY_NANOS));
            try {
                return take(waiter, attempt);
            } finally {
                CallDeadline.clear();
            }
        } finally {
            events.triedOnce();
        }
    }

    /**
     * How long {@code waiter}, an unfair wait about to try for the first time, holds back first: while this node's
     * waiters of the key hold back after a run of hand-offs ({@link WaitQueue#holdBack}), a new wait of this node
     * (the thread that just let go of the key, asking again) must not take the key from a waiter of another node in
     * that moment either. A wait of one try does not hold back.
     */
    long holdsBackNanos(Waiter waiter) {
        return waiter.turn != null || waiter.triedBefore || waiter.budgetNanos == 0 ? 0
                : Math.min(waiter.budgetNanos, queue.heldBackNanos(waiter.refusedKey()));
    }

    /** The try itself; a fair waiter refused registers its request, if it has none yet. */
    private <T> T take(Waiter waiter, Attempt<T> attempt) throws LockException {
        FairTurn turn = waiter.turn;
        if (turn == null) {
            return attempt.take();
        }
        String cycle = turn.deadlock;
        if (cycle != null) {
            throw new LockManagerException(LockManagerException.ErrorCode.DEADLOCK, cycle);
        }
        try {
            return attempt.take();
        } catch (AlreadyLockedException refused) {
            if (!turn.isRegistered()) {
                requests.register(turn);
                if (turn.behind && waiter.budgetNanos > 0) {
                    placeBehind(waiter, turn);
                } else if (waiter.budgetNanos > 0) {
                    // refused by a holder: it finds its place now, while the key is held, not after the release
                    requests.findPlace(turn);
                }
            }
            throw refused;
        }
    }

    /**
     * A wait held back by earlier requests has just registered its own: where the store announces withdrawals it
     * watches its line first and then reads it once, noting the requests before it, so that it parks on its line alone
     * ({@link #parkBehind}): the key's releases do not wake it, and the withdrawal of the last request before it (where
     * the store says whose it was) tells it that it is first. The read before it registered cannot serve: a request
     * registered between that read and its own stands before it unseen.
     */
    private void placeBehind(Waiter waiter, FairTurn turn) {
        if (!watchesLine(waiter) || waiter.unwatch != null) {
            return;
        }
        waiter.lineMoved = false;
        watchLine(waiter, turn);
        if (waiter.unwatch == null) {
            return;
        }
        waiter.lineArmed = true;
        requests.findPlace(turn);
        if (turn.clearOf == turn.request) {
            // first already: it tries again at once
            waiter.lineMoved = true;
        }
    }

    /**
     * Parks {@code waiter} after the refusal {@code held}, with {@code remainingNanos} of its wait left: in the queue
     * of the refusing key when its holder is here, else watching the store for its release.
     *
     * @return how long it may sleep before it looks again; 0 if it should try again at once
     */
    long park(Waiter waiter, AlreadyLockedException held, long remainingNanos) {
        lastRefusal = waiter.refusedBy(held, lastRefusal);
        long pause;
        if (waiter.turn != null && waiter.turn.behind) {
            return parkBehind(waiter, remainingNanos);
        }
        if (waiter.lineArmed) {
            // nothing stands before it in line any more: the key's release is all it waits for
            unwatch(waiter);
        }
        if (held.isHeldOnThisNode()) {
            queue.add(waiter);
            if (queue.noneLeft(waiter.refusedKey())) {
                // the holder left between the refusal and the queueing: no release will wake this one
                queue.remove(waiter);
                return 0;
            }
            pause = pollNanos * (waiter.mode == LockMode.PERMIT ? 1 : LOCAL_SAFETY_INTERVALS);
            watchLineIfNotFirst(waiter);
        } else {
            if (waiter.backoff == null) {
                waiter.backoff = new PollBackoff(pollNanos, ThreadLocalRandom.current());
            }
            pause = waiter.backoff.nextNanos();
            watch(waiter);
            if (waiter.unwatch != null) {
                // the store announces the release: a try now and then only makes up for an announcement missed, or
                // for a holder that died, which announces nothing: it looks again when that holder's lease ends (one
                // past by this node's clock but not the store's is polled for with the backoff)
                long untilEnd = untilLeaseEnds(waiter.holderLeaseEnd());
                pause = untilEnd > BEHIND_FIRST_PAUSE_NANOS ? untilEnd : pause;
                watchLineIfNotFirst(waiter);
            }
        }
        return Math.min(pause, remainingNanos);
    }

    /** The shortest pause of a fair waiter held back by a request while the key is free: its turn is about to be taken. */
    private static final long BEHIND_FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /**
     * The longest such pause: a line whose first request is a dead node's costs a try every 4 ms until that request's
     * lease ends (at most 5 s), and a live first request that is slow to take the key delays the next by as much.
     */
    private static final long BEHIND_LONGEST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(4);

    /**
     * Parks a fair waiter held back by an earlier request rather than by a holder. The request before it takes the key
     * and then withdraws, so the waiter watches the key's release, as a waiter refused by its holder does: it is woken
     * when the earlier one lets go, and finds itself first. Where the key is free now (the earlier one is about to
     * take it) the store wakes it at once; it then pauses 1 ms, twice as long each time that happens in a row, up to
     * 4 ms, so that a line whose first request is a dead node's (it ends with its short lease) costs no spin. A turn a
     * local release gave it goes on to the next local waiter. A waiter that watched its line before this try read it
     * ({@link #armLine}) watches nothing more: a withdrawal wakes it (at once if one came during the try), else it
     * reads the line again when the lease of the request that held it back ends.
     */
    private long parkBehind(Waiter waiter, long remainingNanos) {
        FairTurn turn = waiter.turn;
        if (waiter.wokenByRelease) {
            waiter.wokenByRelease = false;
            queue.keyGone(waiter.refusedKey());
        }
        if (waiter.lineArmed) {
            turn.behindPauseNanos = 0;
            return waiter.lineMoved ? 0 : Math.min(untilBlockerEnds(turn), remainingNanos);
        }
        Thread parking = Thread.currentThread();
        boolean[] freeNow = {false};
        boolean[] parked = {false};
        watch(waiter, () -> {
            if (!parked[0] && Thread.currentThread() == parking) {
                freeNow[0] = true;
            } else {
                waiter.wake();
            }
        });
        if (waiter.unwatch != null && !freeNow[0] && watchesLine(waiter)) {
            watchLine(waiter, turn);
        }
        parked[0] = true;
        long pause;
        if (waiter.unwatch != null && !freeNow[0]) {
            turn.behindPauseNanos = 0;
            pause = pollNanos * ANNOUNCED_SAFETY_INTERVALS;
        } else if (waiter.unwatch != null) {
            pause = turn.behindPauseNanos = turn.behindPauseNanos == 0 ? BEHIND_FIRST_PAUSE_NANOS
                    : Math.min(Math.min(pollNanos, BEHIND_LONGEST_PAUSE_NANOS), turn.behindPauseNanos * 2);
        } else {
            if (waiter.backoff == null) {
                waiter.backoff = new PollBackoff(pollNanos, ThreadLocalRandom.current());
            }
            pause = waiter.backoff.nextNanos();
        }
        return Math.min(pause, remainingNanos);
    }

    /**
     * Before a try of a registered fair waiter that an earlier request held back last time: watches the key's line
     * first, so that the try's read of the line and any withdrawal after it cannot pass each other unseen. Held back
     * again, it then parks on that watch alone ({@link #parkBehind}): the key's releases, which only the first in line
     * can use, do not wake it, and the store's calls at a hand-over are the next holder's. Where the store announces
     * nothing it parks as before.
     */
    private void armLine(Waiter waiter) {
        FairTurn turn = waiter.turn;
        if (turn == null) {
            return;
        }
        boolean wasBehind = turn.behind;
        // set again by this try if it reads the line: a try refused by a holder of this node reads none
        turn.behind = false;
        if (!wasBehind || !watchesLine(waiter) || turn.clearOf == turn.request || waiter.unwatch != null) {
            return;
        }
        waiter.lineMoved = false;
        watchLine(waiter, turn);
        waiter.lineArmed = waiter.unwatch != null;
    }

    /**
     * How long a waiter that watches only its line sleeps before it reads the line again: until the lease of the
     * request before it ends (a dead node's ends then; a live one's was renewed meanwhile), at least 1 ms and at most
     * the safety look's interval.
     */
    private long untilBlockerEnds(FairTurn turn) {
        return Math.max(BEHIND_FIRST_PAUSE_NANOS, untilLeaseEnds(turn.blockerExpires));
    }

    /**
     * The time until {@code leaseEnd} (a record's, in the store's time) and 1 ms more, read on this node's clock: at
     * most the safety look's interval, which is also the answer when there is no lease end to go by.
     */
    private long untilLeaseEnds(Instant leaseEnd) {
        long longest = pollNanos * ANNOUNCED_SAFETY_INTERVALS;
        if (leaseEnd == null) {
            return longest;
        }
        return Math.min(longest, Duration.between(time.now(), leaseEnd).toNanos() + BEHIND_FIRST_PAUSE_NANOS);
    }

    /**
     * A fair waiter refused by a holder that has not yet found itself first in its key's line watches the line too
     * ({@link #watchLine}).
     */
    private void watchLineIfNotFirst(Waiter waiter) {
        if (watchesLine(waiter) && waiter.turn.clearOf != waiter.turn.request) {
            watchLine(waiter, waiter.turn);
        }
    }

    /** Whether {@code waiter} is a registered fair wait for a plain key, refused for that key. */
    private static boolean watchesLine(Waiter waiter) {
        FairTurn turn = waiter.turn;
        return turn != null && turn.separator == 0 && turn.isRegistered() && waiter.refusedKey().equals(turn.key);
    }

    /**
     * Also wakes {@code waiter} when a request of its key's line is withdrawn, where the store announces that: the
     * request before it has just taken the key (a request is withdrawn when its wait ends), so this one reads the line
     * while that one holds the key, finds itself first, and at the release takes the key with one store call, the
     * line's read off that path. It keeps watching the key's release as well: a withdrawal announced before its watch
     * began is not missed for longer than the key is held.
     */
    private void watchLine(Waiter waiter, FairTurn turn) {
        Thread parking = Thread.currentThread();
        boolean[] answered = {false};
        Runnable unwatchLine;
        try {
            // where the store says whose request was withdrawn, only the withdrawal of the last one before this
            // request wakes it, and it is first without reading the line again
            unwatchLine = store.watchWithdrawals(turn.key.requests(), ownerToken -> {
                if (ownerToken == null || turn.withdrawn(ownerToken) != FairTurn.Withdrawal.NOTHING) {
                    waiter.lineMoved = true;
                    waiter.wake();
                }
            });
            if (unwatchLine == null) {
                unwatchLine = watchLineRelease(waiter, turn, parking, answered);
            }
        } catch (LockManagerException | RuntimeException e) {
            log.debug("Node '{}' could not watch the line of lock '{}' in store {}: {}", nodeId, turn.key.name(),
                    store, e.toString());
            return;
        }
        answered[0] = true;
        if (unwatchLine != null) {
            Runnable unwatchKey = waiter.unwatch;
            Runnable line = unwatchLine;
            waiter.unwatch = unwatchKey == null ? line : () -> {
                unwatchKey.run();
                line.run();
            };
        }
    }

    /** {@link #watchLine} where the store tells only that a withdrawal came: each one wakes the waiter. */
    private Runnable watchLineRelease(Waiter waiter, FairTurn turn, Thread parking, boolean[] answered)
            throws LockManagerException {
        return store.watchRelease(turn.key.requests(), () -> {
            // at once, on this thread: no request of the line is live, this one's included (its lease ran out
            // unrenewed); its next try finds that out, so the watch of the key is enough
            if (answered[0] || Thread.currentThread() != parking) {
                waiter.lineMoved = true;
                waiter.wake();
            }
        });
    }

    /** Asks the store to announce the release of the key that refused {@code waiter}, where it can. */
    private void watch(Waiter waiter) {
        watch(waiter, waiter::wake);
    }

    /** As {@link #watch(Waiter)}, with {@code wake} run at the announcement. */
    private void watch(Waiter waiter, Runnable wake) {
        try {
            waiter.unwatch = store.watchRelease(waiter.refusedKey(), wake);
        } catch (LockManagerException | RuntimeException e) {
            log.debug("Node '{}' could not watch for a release of lock '{}' in store {}, so its waiter polls: {}",
                    nodeId, waiter.refusedKey().name(), store, e.toString());
        }
    }

    /** Out of the queue and the store's watch: before each try, and when the wait ends. */
    void unpark(Waiter waiter) {
        unwatch(waiter);
        queue.remove(waiter);
    }

    private static void unwatch(Waiter waiter) {
        waiter.lineArmed = false;
        Runnable unwatch = waiter.unwatch;
        if (unwatch != null) {
            waiter.unwatch = null;
            unwatch.run();
        }
    }

    /**
     * The wait is over: nothing of it is left behind, and a turn a local release gave it is passed on (a waiter that
     * got the key passes it on too: a reader lets the next reader in).
     */
    void leave(Waiter waiter, boolean acquired) {
        unpark(waiter);
        if (waiter.turn != null) {
            requests.withdraw(waiter.turn);
        }
        if (waiter.wokenByRelease || acquired) {
            queue.keyGone(waiter.refusedKey());
        }
    }

    /** A store failure of a try: thrown as it is, unless the time is up after a refusal (then the wait ran out). */
    static LockException afterDeadline(LockManagerException failed, Waiter waiter) {
        AlreadyLockedException refused = waiter.lastRefusal();
        long waited = System.nanoTime() - waiter.startNanos;
        if (refused == null || waited < waiter.budgetNanos) {
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
