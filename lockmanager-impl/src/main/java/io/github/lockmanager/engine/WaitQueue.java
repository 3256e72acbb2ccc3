package io.github.lockmanager.engine;

import io.github.lockmanager.spi.LockKey;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The waiters of this node that a holder of this node keeps out, one queue per key, first come first woken: when a
 * holder of the key is gone ({@link AcquisitionTable#retire}), the first waiter that no holder left here keeps out is
 * taken out and woken, and passes the turn on when it leaves for good. Threads and tasks wait here alike. The queue of
 * a key is changed under its map bin's lock; nothing blocks there.
 */
final class WaitQueue {
    /**
     * How long this node's waiters hold back after a release that ended a run of hand-offs
     * ({@link HandOffs}: {@code maxLocalHandOffs} in a row): long enough for a waiter on another node, woken by the
     * store's announcement of the release, to take the key; short enough to cost little where no one else waits.
     */
    static final long HOLD_BACK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final AcquisitionTable table;
    private final ScheduledExecutorService timer;
    private final ConcurrentHashMap<LockKey, ArrayDeque<Waiter>> queues = new ConcurrentHashMap<>();
    /** The keys whose next local wake-up waits {@link #HOLD_BACK_NANOS}; a few at most. */
    private final Set<LockKey> heldBack = ConcurrentHashMap.newKeySet();
    /**
     * The keys released while this node holds its waiters back, and when that ends ({@link System#nanoTime()}): a
     * wait that starts meanwhile holds back too ({@link #heldBackNanos}), or the thread that just let go of the key,
     * asking again at once, would take it before the other node's waiter hears of the release.
     */
    private final ConcurrentHashMap<LockKey, Long> heldBackUntil = new ConcurrentHashMap<>();

    WaitQueue(AcquisitionTable table, ScheduledExecutorService timer) {
        this.table = table;
        this.timer = timer;
    }

    /**
     * The next release of {@code key} wakes this node's next waiter only {@link #HOLD_BACK_NANOS} later, giving waiters
     * on other nodes their chance: what bounds how long they are passed over while this node's threads take turns.
     */
    void holdBack(LockKey key) {
        heldBack.add(key);
    }

    /**
     * How long a wait for {@code key} that starts now holds back before its first try: what is left of this node's
     * hold-back after the key's release ({@link #holdBack}), or 0.
     */
    long heldBackNanos(LockKey key) {
        if (heldBackUntil.isEmpty()) {
            return 0;
        }
        Long until = heldBackUntil.get(key);
        return until == null ? 0 : Math.max(0, until - System.nanoTime());
    }

    void add(Waiter waiter) {
        queues.compute(waiter.refusedKey(), (k, queue) -> {
            ArrayDeque<Waiter> q = queue != null ? queue : new ArrayDeque<>();
            q.add(waiter);
            return q;
        });
    }

    void remove(Waiter waiter) {
        if (!queues.isEmpty()) {
            queues.computeIfPresent(waiter.refusedKey(), (k, queue) -> {
                queue.remove(waiter);
                return queue.isEmpty() ? null : queue;
            });
        }
    }

    /** How many waiters are queued, for tests: each key's queue read under its bin's lock. */
    int size() {
        int[] count = {0};
        for (LockKey key : queues.keySet()) {
            queues.computeIfPresent(key, (k, queue) -> {
                count[0] += queue.size();
                return queue;
            });
        }
        return count[0];
    }

    /**
     * Whether an unfair waiter of this node waits for a holder of {@code key} here: its record is worth handing over. A
     * fair waiter is never handed a record: the key goes to the first request in the store's line, wherever it waits.
     */
    boolean isAwaited(LockKey key) {
        if (queues.isEmpty() || !queues.containsKey(key)) {
            return false;
        }
        boolean[] unfair = {false};
        queues.computeIfPresent(key, (k, queue) -> {
            for (Waiter waiter : queue) {
                if (waiter.turn == null && !waiter.isDone()) {
                    unfair[0] = true;
                    break;
                }
            }
            return queue;
        });
        return unfair[0];
    }

    /** A holder of {@code key} here is gone, or a woken waiter passes its turn on: the next waiter let in tries. */
    void keyGone(LockKey key) {
        if (queues.isEmpty()) {
            return;
        }
        if (!heldBack.isEmpty() && heldBack.remove(key)) {
            Long until = System.nanoTime() + HOLD_BACK_NANOS;
            heldBackUntil.put(key, until);
            try {
                timer.schedule(() -> {
                    heldBackUntil.remove(key, until);
                    keyGone(key);
                }, HOLD_BACK_NANOS, TimeUnit.NANOSECONDS);
                return;
            } catch (RejectedExecutionException closing) {
                // the manager closes: wake the waiter now, it will be told so
                heldBackUntil.remove(key, until);
            }
        }
        Waiter[] next = new Waiter[1];
        queues.computeIfPresent(key, (k, queue) -> {
            for (Iterator<Waiter> it = queue.iterator(); it.hasNext(); ) {
                Waiter waiter = it.next();
                if (waiter.isDone()) {
                    it.remove();
                } else if (!isKeptOut(waiter)) {
                    it.remove();
                    // marked under the queue's lock: a waiter that leaves removes itself under it first, then reads
                    // the mark, so a turn given to a waiter leaving at that moment is passed on, never lost
                    waiter.wokenByRelease = true;
                    next[0] = waiter;
                    break;
                }
            }
            return queue.isEmpty() ? null : queue;
        });
        if (next[0] != null) {
            next[0].wake();
        }
    }

    /**
     * Whether a holder of this node still keeps {@code waiter} out of the key it was refused: one whose mode conflicts
     * with the waiter's (permit holders are counted by the store, which a permit waiter asks). A try then could only
     * be refused again, so the waiter is not woken for it.
     */
    private boolean isKeptOut(Waiter waiter) {
        LockKey key = waiter.refusedKey();
        for (Acquisition local : table.all(key.level(), key.name())) {
            if (!local.isGone() && local.mode().conflictsWith(waiter.refusedMode())) {
                return true;
            }
        }
        return false;
    }

    /** Whether no holder of {@code key} is left here: one that left before its waiter was queued woke no one. */
    boolean noneLeft(LockKey key) {
        for (Acquisition local : table.all(key.level(), key.name())) {
            if (!local.isGone()) {
                return false;
            }
        }
        return true;
    }
}
