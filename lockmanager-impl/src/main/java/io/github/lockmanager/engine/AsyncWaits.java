package io.github.lockmanager.engine;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockEventListener.WaitResult;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.TaskLock;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Waits for task locks that park no thread: a waiter is a small object with a timer, tried again on the manager's
 * task threads when it may get the key. A holder of this node wakes the first waiter parked for its key when it is
 * gone ({@link AcquisitionTable#retire}); a holder elsewhere is waited for through the store's release announcements
 * where it has them ({@link LockStore#watchRelease}), and polled with {@link PollBackoff} up to the wait poll interval.
 * The task threads are made at the first task call and stopped on close, which fails the waits left.
 */
final class AsyncWaits {
    private static final Logger log = LoggerFactory.getLogger(AsyncWaits.class);
    private static final int THREADS = 2;
    /**
     * A waiter for a holder of this node is woken when that holder is gone; its timer is only a safety net, so it
     * looks again this many wait poll intervals later, which keeps many parked waiters from costing a try each per
     * interval.
     */
    private static final int LOCAL_SAFETY_INTERVALS = 10;

    /** One try at the lock a wait is for. */
    @FunctionalInterface
    interface Attempt extends Waits.TryOnce<TaskLock> {
    }

    private final String nodeId;
    private final long pollNanos;
    private final AcquisitionTable table;
    private final LockStore store;
    private final Events events;
    private final Lifecycle lifecycle;
    private final NamedThreadFactory threads;
    /** The waiters for a holder of this node, by the store's key, first come first woken. */
    private final ConcurrentHashMap<LockKey, ArrayDeque<Waiter>> parked = new ConcurrentHashMap<>();
    private final Set<Waiter> waiting = ConcurrentHashMap.newKeySet();
    private ScheduledThreadPoolExecutor executor;
    private boolean stopped;

    AsyncWaits(EngineSettings settings, AcquisitionTable table, Events events, Lifecycle lifecycle) {
        this.nodeId = settings.nodeId();
        this.pollNanos = settings.waitPollInterval().toNanos();
        this.table = table;
        this.store = settings.store();
        this.events = events;
        this.lifecycle = lifecycle;
        this.threads = new NamedThreadFactory("lockmanager-" + nodeId + "-tasks");
    }

    /**
     * Starts a wait for {@code key} in {@code mode} through {@code attempt}, of at most {@code budgetNanos}; the first
     * try runs on a task thread.
     */
    CompletableFuture<TaskLock> start(Attempt attempt, LockKey key, LockMode mode, long budgetNanos) {
        Waiter waiter = new Waiter(attempt, key, mode, budgetNanos);
        waiting.add(waiter);
        waiter.future.whenComplete((lock, failure) -> waiter.ended());
        waiter.wake();
        return waiter.future;
    }

    /** Runs {@code work} on a task thread, or here if the manager has stopped them. */
    void run(Runnable work) {
        try {
            executor().execute(work);
        } catch (RejectedExecutionException | IllegalStateException stopped) {
            work.run();
        }
    }

    private synchronized ScheduledThreadPoolExecutor executor() {
        if (stopped) {
            throw lifecycle.closedException();
        }
        if (executor == null) {
            executor = new ScheduledThreadPoolExecutor(THREADS, threads);
            executor.setRemoveOnCancelPolicy(true);
        }
        return executor;
    }

    /** A holder of this node is gone from {@code key}: the first live waiter parked for it tries now. */
    void keyGone(LockKey key) {
        if (parked.isEmpty()) {
            return;
        }
        Waiter[] next = new Waiter[1];
        parked.computeIfPresent(key, (k, queue) -> {
            Waiter w;
            while ((w = queue.poll()) != null && w.future.isDone()) {
                // cancelled or failed: dropped
            }
            next[0] = w;
            return queue.isEmpty() ? null : queue;
        });
        if (next[0] != null) {
            next[0].wokenByRelease = true;
            next[0].wake();
        }
    }

    /** How many waits are under way, for tests and the admin view. */
    int size() {
        return waiting.size();
    }

    /** Fails every wait left and stops the task threads; called first when the manager closes. */
    void stop() {
        ScheduledThreadPoolExecutor running;
        synchronized (this) {
            stopped = true;
            running = executor;
        }
        List<Waiter> left = List.copyOf(waiting);
        for (Waiter waiter : left) {
            waiter.future.completeExceptionally(lifecycle.closedException());
        }
        if (!left.isEmpty()) {
            log.info("Lock manager of node '{}' is closing: {} waits for task locks ended unfulfilled", nodeId,
                    left.size());
        }
        if (running != null) {
            running.shutdownNow();
            try {
                if (!threads.awaitExit(5, TimeUnit.SECONDS)) {
                    log.warn("Task threads of node '{}' did not stop within 5 s: a store call is hanging", nodeId);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** One wait: tried on a task thread whenever it is woken, parked in between. */
    private final class Waiter implements Runnable {
        private static final int IDLE = 0;
        private static final int QUEUED = 1;

        final CompletableFuture<TaskLock> future = new CompletableFuture<>();
        private final Attempt attempt;
        private final LockKey key;
        private final LockMode mode;
        /** The key that refused the last try: {@link #key}, or for a path one of its ancestors. */
        private volatile LockKey refusedKey;
        private final long startNanos = System.nanoTime();
        private final long budgetNanos;
        private final AtomicInteger state = new AtomicInteger(IDLE);
        private PollBackoff backoff;
        private volatile ScheduledFuture<?> timer;
        private volatile Runnable unwatch;
        volatile boolean wokenByRelease;
        /** Whether a try was made: later tries' refusals are this wait's, counted once as a thread wait's are. */
        private boolean triedBefore;
        /**
         * Who held the key at the last refusal, which a try cut short by the wait's deadline ends the wait with. Kept
         * as its holder alone: a parked waiter holding the refusal itself would keep its stack trace, more than the
         * rest of the waiter together.
         */
        private Refusal refused;

        Waiter(Attempt attempt, LockKey key, LockMode mode, long budgetNanos) {
            this.attempt = attempt;
            this.key = key;
            this.mode = mode;
            this.refusedKey = key;
            this.budgetNanos = budgetNanos;
        }

        /** Tries soon unless a try is already due; from any thread. */
        void wake() {
            if (state.compareAndSet(IDLE, QUEUED)) {
                try {
                    executor().execute(this);
                } catch (RejectedExecutionException | IllegalStateException stopped) {
                    future.completeExceptionally(lifecycle.closedException());
                }
            }
        }

        @Override
        public void run() {
            boolean woken = wokenByRelease;
            wokenByRelease = false;
            stopWatching();
            // a timer woke it while parked for a holder here, or a release did: either way out of the queue, so a
            // waiter is in one queue at most, once, whichever key refuses it next
            unpark();
            if (future.isDone()) {
                passOn(woken);
                return;
            }
            try {
                TaskLock lock = take();
                if (!future.complete(lock)) {
                    // cancelled while the store granted it: no one will use it
                    lock.close();
                }
            } catch (AlreadyLockedException held) {
                refused = new Refusal(held.getKey(), held.getHolderNodeId(), held.getHolderThreadName(),
                        held.isHeldOnThisNode());
                long waited = System.nanoTime() - startNanos;
                long remaining = budgetNanos - waited;
                if (remaining <= 0) {
                    future.completeExceptionally(budgetNanos == 0 ? held
                            : new AlreadyLockedException(held, Duration.ofNanos(waited)));
                    return;
                }
                refusedKey = held.getKey().equals(key.name()) ? key : key.withName(held.getKey());
                state.set(IDLE);
                park(held.isHeldOnThisNode(), remaining);
            } catch (LockManagerException e) {
                future.completeExceptionally(Waits.afterDeadline(e, refused == null ? null : refused.exception(),
                        startNanos, budgetNanos));
                passOn(woken);
            } catch (LockException | RuntimeException | Error e) {
                future.completeExceptionally(e);
                passOn(woken);
            }
        }

        /** One try; runs on one task thread at a time (a waiter is queued once), so {@link #triedBefore} needs no lock. */
        private TaskLock take() throws LockException {
            if (triedBefore) {
                events.waitingFor(key.name(), key.level());
            }
            triedBefore = true;
            try {
                return Waits.tryBefore(attempt, startNanos, budgetNanos);
            } finally {
                events.triedOnce();
            }
        }

        /** A release woke this waiter, which ended without trying: the next one is woken instead. */
        private void passOn(boolean woken) {
            if (woken) {
                keyGone(refusedKey);
            }
        }

        private void park(boolean heldHere, long remainingNanos) {
            long pause;
            if (heldHere) {
                parked.compute(refusedKey, (k, queue) -> {
                    ArrayDeque<Waiter> q = queue != null ? queue : new ArrayDeque<>();
                    q.add(this);
                    return q;
                });
                pause = pollNanos * LOCAL_SAFETY_INTERVALS;
                if (table.all(refusedKey.level(), refusedKey.name()).stream().allMatch(Acquisition::isGone)) {
                    // the holder left between the refusal and the parking: no release will wake this one
                    wake();
                    return;
                }
            } else {
                if (backoff == null) {
                    backoff = new PollBackoff(pollNanos, ThreadLocalRandom.current());
                }
                pause = backoff.nextNanos();
                watch();
                if (unwatch != null) {
                    // the store announces the release: a try now and then only makes up for an announcement missed
                    pause = Math.max(pause, Waits.announcedPauseNanos(pollNanos));
                }
            }
            try {
                timer = executor().schedule(this::wake, Math.min(pause, remainingNanos), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException | IllegalStateException stopped) {
                future.completeExceptionally(lifecycle.closedException());
            }
        }

        /** Asks the store to announce the key's release, where it can. */
        private void watch() {
            try {
                unwatch = store.watchRelease(refusedKey, this::wake);
            } catch (LockManagerException | RuntimeException e) {
                log.debug("Node '{}' could not watch for a release of lock '{}' in store {}, so its task waiter polls: "
                        + "{}", nodeId, refusedKey.name(), store, e.toString());
            }
        }

        private void stopWatching() {
            ScheduledFuture<?> t = timer;
            if (t != null) {
                timer = null;
                t.cancel(false);
            }
            Runnable u = unwatch;
            if (u != null) {
                unwatch = null;
                u.run();
            }
        }

        private void unpark() {
            if (!parked.isEmpty()) {
                parked.computeIfPresent(refusedKey, (k, queue) -> {
                    queue.remove(this);
                    return queue.isEmpty() ? null : queue;
                });
            }
        }

        /** The wait is over, however it ended: nothing of it is left behind. */
        void ended() {
            waiting.remove(this);
            stopWatching();
            unpark();
            WaitResult result = future.isCancelled() ? WaitResult.INTERRUPTED
                    : !future.isCompletedExceptionally() ? WaitResult.ACQUIRED
                    : future.handle((l, e) -> e instanceof AlreadyLockedException).join() ? WaitResult.TIMED_OUT
                    : WaitResult.FAILED;
            events.waited(key.name(), key.level(), mode, Duration.ofNanos(System.nanoTime() - startNanos),
                    result);
        }
    }

    /** A refusal's holder, enough to say who held the key when a wait ends without it. */
    private record Refusal(String key, String holderNodeId, String holderThreadName, boolean heldOnThisNode) {
        AlreadyLockedException exception() {
            return new AlreadyLockedException(key, holderNodeId, holderThreadName, heldOnThisNode);
        }
    }
}
