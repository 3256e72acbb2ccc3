package io.github.lockmanager.engine;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The records this node keeps for a moment after a holder let go of them, because a waiter of this node (a thread or a
 * task) waits for the key: the next thread of this node that asks for the key takes the record over in its acquisition
 * ({@link io.github.lockmanager.spi.LockRequest#predecessor()}), one store call instead of a release and an
 * acquisition. A key is handed over at most {@code maxLocalHandOffs} times in a row; the release after that is a real
 * one, and this node's waiters hold back for a moment ({@link WaitQueue#holdBack}), so that waiters on other nodes get
 * their chance. Whoever takes a parked record out of here (a claim, or the
 * release of one left unclaimed) is the only one to act on it. No I/O here.
 */
final class HandOffs {
    /**
     * A record let go of and not yet taken over: the acquisition that let go of it (told it lost the lock if the store
     * no longer has the record as its own when it is handed over or released), the end of its last confirmed lease,
     * its hand-offs in a row, and when it was parked ({@link System#nanoTime()}: a wait of real time, whatever clock
     * leases are measured by).
     */
    record Parked(Acquisition giver, long leaseEndNanos, int inARow, long parkedAtNanos) {
        LockHandle handle() {
            return giver.handle();
        }
    }

    /** The hand-offs in a row that led to the acquisition {@code holder}. */
    private record Run(LockHandle holder, int inARow) {
    }

    /**
     * How long this node keeps a key by runs of hand-offs before the release that ends a run also holds its waiters
     * back ({@link WaitQueue#holdBack}): what a node that only contends with itself pays for that is at most
     * {@link WaitQueue#HOLD_BACK_NANOS} in this much.
     */
    static final long STREAK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final int maxInARow;
    /**
     * When each key's current streak of runs began and when it last saw a release with a waiter here: hot keys only,
     * dropped once idle ({@link #forgetEnded}).
     */
    private final ConcurrentHashMap<LockKey, Streak> streaks = new ConcurrentHashMap<>();

    private static final class Streak {
        final long since;
        volatile long last;

        Streak(long since) {
            this.since = since;
            this.last = since;
        }
    }
    private final Lifecycle lifecycle;
    private final WaitQueue waiting;
    private final ConcurrentHashMap<LockKey, Parked> parked = new ConcurrentHashMap<>();
    /**
     * Only the keys whose current holder was handed its key: hot keys, a few. An entry whose holder ended without
     * being released through here (lost, reclaimed) is dropped by {@link #forgetEnded}.
     */
    private final ConcurrentHashMap<LockKey, Run> runs = new ConcurrentHashMap<>();

    HandOffs(EngineSettings settings, Lifecycle lifecycle, WaitQueue waiting) {
        this.maxInARow = settings.maxLocalHandOffs();
        this.lifecycle = lifecycle;
        this.waiting = waiting;
    }

    /**
     * Parks the record of {@code ended}, whose last hold was just given back, if a waiter of this node waits for the
     * key and the key has not been handed over too often in a row; {@code null} if the record is to be released.
     */
    Parked park(Acquisition ended) {
        LockKey key = ended.key();
        Run run = runs.isEmpty() ? null : runs.remove(key);
        if (maxInARow == 0 || !waiting.isAwaited(key) || ended.mode() != LockMode.EXCLUSIVE || !lifecycle.isOpen()) {
            return null;
        }
        int inARow = run != null && run.holder().equals(ended.handle()) ? run.inARow() : 0;
        long now = System.nanoTime();
        Streak streak = streaks.computeIfAbsent(key, k -> new Streak(now));
        streak.last = now;
        if (inARow >= maxInARow) {
            // a real release now; once this node has kept the key a while, its waiters also wait a moment, so that
            // one on another node, woken by the store's announcement, may take it
            if (now - streak.since >= STREAK_NANOS) {
                streaks.remove(key);
                waiting.holdBack(key);
            }
            return null;
        }
        Parked mine = new Parked(ended, ended.confirmedUntilNanos(), inARow + 1, now);
        // an exclusive holder claimed whatever was parked before it; one left (its lease ran out and a holder in
        // another mode came between) is the one the next acquisition takes, and this record is released
        return parked.putIfAbsent(key, mine) == null ? mine : null;
    }

    /** Takes the record parked for {@code key} out, for an exclusive acquisition of it to take over; or {@code null}. */
    Parked claim(LockKey key) {
        return parked.isEmpty() ? null : parked.remove(key);
    }

    /** {@code holder} took over {@code handedOver}. */
    void handedOver(LockHandle holder, Parked handedOver) {
        runs.put(holder.key(), new Run(holder, handedOver.inARow()));
    }

    /** Takes {@code unclaimed} out if no one claimed it: {@code true} if the caller is now to release it. */
    boolean unclaim(Parked unclaimed) {
        return parked.remove(unclaimed.handle().key(), unclaimed);
    }

    /** Takes out every record parked at {@code cutoffNanos} or before, for the caller to release them. */
    List<Parked> unclaimParkedBy(long cutoffNanos) {
        return unclaimEvery(each -> each.parkedAtNanos() - cutoffNanos <= 0);
    }

    /** Takes out every parked record, for the manager's shutdown to release them. */
    List<Parked> unclaimAll() {
        return unclaimEvery(each -> true);
    }

    private List<Parked> unclaimEvery(Predicate<Parked> wanted) {
        List<Parked> taken = new ArrayList<>();
        for (Parked each : parked.values()) {
            if (wanted.test(each) && unclaim(each)) {
                taken.add(each);
            }
        }
        return taken;
    }

    boolean anyParked() {
        return !parked.isEmpty();
    }

    /** Drops the runs of keys whose handed-over holder is no longer {@code table}'s entry for the key. */
    void forgetEnded(AcquisitionTable table) {
        if (!streaks.isEmpty()) {
            long now = System.nanoTime();
            streaks.values().removeIf(streak -> now - streak.last > 4 * STREAK_NANOS);
        }
        if (!runs.isEmpty()) {
            runs.values().removeIf(run -> {
                Acquisition now = table.get(run.holder().key().level(), run.holder().key().name());
                return now == null || !now.handle().equals(run.holder());
            });
        }
    }
}
