package io.github.lockmanager.engine;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockEventListener.WaitResult;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.TaskLock;
import io.github.lockmanager.spi.LockKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Waits for a lock, of threads and of tasks alike: try, and when refused park a {@link Waiter} until it may get the
 * key ({@link Parking}: a local release, the store's announcement or a timer wakes it), then try again, until taken
 * or the wait's time is up. A thread waiter parks its thread on the waiter; a task waiter parks none: its tries and
 * timer run on the {@link TaskThreads}. Each wait is one event ({@link Events#waited}), its tries after the
 * first no refusals of their own.
 */
final class Waits {
    private static final Logger log = LoggerFactory.getLogger(Waits.class);

    private final String nodeId;
    private final Parking parking;
    private final Events events;
    private final Lifecycle lifecycle;
    private final TaskThreads tasks;
    private final Set<TaskWaiter> taskWaiters = ConcurrentHashMap.newKeySet();
    private final AtomicInteger waiting = new AtomicInteger();

    Waits(EngineSettings settings, Parking parking, TaskThreads tasks, Events events, Lifecycle lifecycle) {
        this.nodeId = settings.nodeId();
        this.parking = parking;
        this.events = events;
        this.lifecycle = lifecycle;
        this.tasks = tasks;
    }

    /**
     * Takes the lock through {@code attempt} on the calling thread, waiting up to {@code maxWait} for it.
     *
     * @throws AlreadyLockedException if {@code maxWait} passed first: the last refusal, with how long it waited
     * @throws InterruptedException   if the calling thread was interrupted before or while it waited
     */
    LockResource await(Parking.Attempt<LockResource> attempt, LockKey key, LockMode mode, Duration maxWait,
                       FairTurn turn) throws LockException, InterruptedException {
        ThreadWaiter waiter = new ThreadWaiter(key, mode, Parking.budgetNanos(maxWait), turn);
        events.waitStarted(key.name(), key.level(), mode);
        waiting.incrementAndGet();
        WaitResult result = WaitResult.FAILED;
        try {
            LockResource lock = waiter.run(attempt);
            result = WaitResult.ACQUIRED;
            return lock;
        } catch (AlreadyLockedException e) {
            result = WaitResult.TIMED_OUT;
            throw e;
        } catch (InterruptedException e) {
            result = WaitResult.INTERRUPTED;
            throw e;
        } catch (LockManagerException e) {
            result = resultOf(e);
            throw e;
        } finally {
            waiter.done = true;
            waiting.decrementAndGet();
            parking.leave(waiter, result == WaitResult.ACQUIRED);
            events.waited(key.name(), key.level(), mode, Duration.ofNanos(System.nanoTime() - waiter.startNanos),
                    result);
        }
    }

    /**
     * Starts a task's wait for {@code key} in {@code mode} through {@code attempt}, of at most {@code budgetNanos}; the
     * first try runs on a task thread; {@code turn} for a fair wait, else {@code null}.
     */
    CompletableFuture<TaskLock> start(Parking.Attempt<TaskLock> attempt, LockKey key, LockMode mode, long budgetNanos,
                                      FairTurn turn) {
        TaskWaiter waiter = new TaskWaiter(attempt, key, mode, budgetNanos, turn);
        events.waitStarted(key.name(), key.level(), mode);
        waiting.incrementAndGet();
        taskWaiters.add(waiter);
        waiter.future.whenComplete((lock, failure) -> waiter.ended());
        long holdBack = parking.holdsBackNanos(waiter);
        if (holdBack > 0) {
            waiter.wakeIn(holdBack);
        } else {
            waiter.wake();
        }
        return waiter.future;
    }

    /** How many task waits are under way, for tests. */
    int size() {
        return taskWaiters.size();
    }

    /** How many waits, of threads and of tasks, are under way: the admin view's waiter count. */
    int waiting() {
        return waiting.get();
    }

    private static WaitResult resultOf(Throwable failure) {
        return failure instanceof LockManagerException e && e.getErrorCode() == LockManagerException.ErrorCode.DEADLOCK
                ? WaitResult.DEADLOCK : failure instanceof AlreadyLockedException ? WaitResult.TIMED_OUT
                : WaitResult.FAILED;
    }

    /** Fails every task wait left; called first when the manager closes. */
    void stop() {
        List<TaskWaiter> left = List.copyOf(taskWaiters);
        for (TaskWaiter waiter : left) {
            waiter.future.completeExceptionally(lifecycle.closedException());
        }
        if (!left.isEmpty()) {
            log.info("Lock manager of node '{}' is closing: {} waits for task locks ended unfulfilled", nodeId,
                    left.size());
        }
    }

    /** A thread's wait: the thread parks on it between tries. */
    private final class ThreadWaiter extends Waiter {
        private final Thread thread = Thread.currentThread();
        private volatile boolean woken;
        volatile boolean done;

        ThreadWaiter(LockKey key, LockMode mode, long budgetNanos, FairTurn turn) {
            super(key, mode, budgetNanos, turn);
        }

        @Override
        void wake() {
            woken = true;
            LockSupport.unpark(thread);
        }

        @Override
        boolean isDone() {
            return done;
        }

        LockResource run(Parking.Attempt<LockResource> attempt) throws LockException, InterruptedException {
            long holdBack = parking.holdsBackNanos(this);
            if (holdBack > 0) {
                sleep(holdBack);
            }
            while (true) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting for a lock");
                }
                try {
                    return parking.tryOnce(this, attempt);
                } catch (LockManagerException failed) {
                    throw parking.afterDeadline(failed, this);
                } catch (AlreadyLockedException held) {
                    long waited = System.nanoTime() - startNanos;
                    long remaining = budgetNanos - waited;
                    if (remaining <= 0) {
                        throw budgetNanos == 0 ? held : new AlreadyLockedException(held, Duration.ofNanos(waited));
                    }
                    woken = false;
                    wokenByRelease = false;
                    sleep(parking.park(this, held, remaining));
                    parking.unpark(this);
                }
            }
        }

        /** Parks the thread until woken or {@code pauseNanos} have passed. */
        private void sleep(long pauseNanos) throws InterruptedException {
            long deadline = System.nanoTime() + pauseNanos;
            while (!woken) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                LockSupport.parkNanos(this, left);
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting for a lock");
                }
            }
        }
    }

    /** A task's wait: tried on a task thread whenever it is woken, parked in between with a timer and no thread. */
    private final class TaskWaiter extends Waiter implements Runnable {
        private static final int IDLE = 0;
        private static final int QUEUED = 1;

        final CompletableFuture<TaskLock> future = new CompletableFuture<>();
        private final Parking.Attempt<TaskLock> attempt;
        private final AtomicInteger state = new AtomicInteger(IDLE);
        private volatile ScheduledFuture<?> timer;

        TaskWaiter(Parking.Attempt<TaskLock> attempt, LockKey key, LockMode mode, long budgetNanos, FairTurn turn) {
            super(key, mode, budgetNanos, turn);
            this.attempt = attempt;
        }

        @Override
        void wake() {
            if (state.compareAndSet(IDLE, QUEUED)) {
                try {
                    tasks.execute(this);
                } catch (IllegalStateException stopped) {
                    future.completeExceptionally(stopped);
                }
            }
        }

        @Override
        boolean isDone() {
            return future.isDone();
        }

        @Override
        public void run() {
            stopTimer();
            if (future.isDone()) {
                // ended while a release chose it: the turn goes on to the next waiter
                parking.leave(this, false);
                return;
            }
            parking.unpark(this);
            try {
                TaskLock lock = parking.tryOnce(this, attempt);
                if (!future.complete(lock)) {
                    // cancelled while the store granted it: no one will use it
                    lock.close();
                }
            } catch (AlreadyLockedException held) {
                long waited = System.nanoTime() - startNanos;
                long remaining = budgetNanos - waited;
                if (remaining <= 0) {
                    future.completeExceptionally(budgetNanos == 0 ? held
                            : new AlreadyLockedException(held, Duration.ofNanos(waited)));
                    return;
                }
                wokenByRelease = false;
                state.set(IDLE);
                wakeIn(parking.park(this, held, remaining));
            } catch (LockManagerException e) {
                future.completeExceptionally(parking.afterDeadline(e, this));
            } catch (LockException | RuntimeException | Error e) {
                future.completeExceptionally(e);
            }
        }

        /** Tries again {@code pauseNanos} from now, or when woken before. */
        void wakeIn(long pauseNanos) {
            try {
                timer = tasks.schedule(this::wake, pauseNanos);
            } catch (IllegalStateException stopped) {
                future.completeExceptionally(stopped);
            }
        }

        private void stopTimer() {
            ScheduledFuture<?> t = timer;
            if (t != null) {
                timer = null;
                t.cancel(false);
            }
        }

        /** The wait is over, however it ended: nothing of it is left behind. */
        void ended() {
            if (taskWaiters.remove(this)) {
                waiting.decrementAndGet();
            }
            stopTimer();
            parking.leave(this, !future.isCompletedExceptionally() && !future.isCancelled());
            WaitResult result = future.isCancelled() ? WaitResult.INTERRUPTED
                    : !future.isCompletedExceptionally() ? WaitResult.ACQUIRED
                    : future.handle((l, e) -> resultOf(e instanceof java.util.concurrent.CompletionException c
                    && c.getCause() != null ? c.getCause() : e)).join();
            events.waited(key.name(), key.level(), mode, Duration.ofNanos(System.nanoTime() - startNanos), result);
        }
    }
}
