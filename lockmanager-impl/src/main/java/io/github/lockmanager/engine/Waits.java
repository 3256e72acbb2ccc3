package io.github.lockmanager.engine;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockEventListener.WaitResult;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.TaskLock;
import io.github.lockmanager.TaskOptions;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.LockKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

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
    private final WakeTimes wakeTimes;
    /**
     * The task waits under way, linked through their own fields ({@link TaskWaiter#previous}, {@link TaskWaiter#next})
     * rather than a set's entries; guarded by {@link #listLock}, which no store call is made under.
     */
    private final ReentrantLock listLock = new ReentrantLock();
    private TaskWaiter first;
    private int listed;
    private final AtomicInteger waiting = new AtomicInteger();
    /** The engine's try at a task lock, given once before the first task wait ({@link #takeTasksWith}). */
    private volatile TaskTry taskTry;

    /** One try at a task lock for a new task owner: the engine's, made once for all task waits. */
    @FunctionalInterface
    interface TaskTry {
        TaskLock take(LockSpec spec, TaskOptions task, FairTurn turn) throws LockException;
    }

    Waits(EngineSettings settings, Parking parking, TaskThreads tasks, Events events, Lifecycle lifecycle) {
        this.nodeId = settings.nodeId();
        this.parking = parking;
        this.events = events;
        this.lifecycle = lifecycle;
        this.tasks = tasks;
        this.wakeTimes = new WakeTimes(tasks::schedule);
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
     * Starts a task's wait for {@code spec} (its key in the store {@code key}) through {@link #taskTry}, of at most
     * {@code budgetNanos}; the first try runs on a task thread; {@code turn} for a fair wait, else {@code null}.
     */
    CompletableFuture<TaskLock> start(LockSpec spec, TaskOptions task, LockKey key, long budgetNanos, FairTurn turn) {
        TaskWaiter waiter = new TaskWaiter(spec, task, key, budgetNanos, turn);
        events.waitStarted(key.name(), key.level(), spec.mode());
        waiting.incrementAndGet();
        link(waiter);
        long holdBack = parking.holdsBackNanos(waiter);
        if (holdBack > 0) {
            waiter.wakeIn(holdBack);
        } else {
            waiter.wake();
        }
        return waiter.future;
    }

    /** Sets how task waits try: one method of the engine's for all of them, where each would keep a lambda. */
    void takeTasksWith(TaskTry taskTry) {
        this.taskTry = taskTry;
    }

    /** How many task waits are under way, for tests. */
    int size() {
        listLock.lock();
        try {
            return listed;
        } finally {
            listLock.unlock();
        }
    }

    private void link(TaskWaiter waiter) {
        listLock.lock();
        try {
            waiter.next = first;
            if (first != null) {
                first.previous = waiter;
            }
            first = waiter;
            listed++;
        } finally {
            listLock.unlock();
        }
    }

    /** Takes {@code waiter} off the list; whether it was on it. */
    private boolean unlink(TaskWaiter waiter) {
        listLock.lock();
        try {
            if (waiter.previous == null && first != waiter) {
                return false;
            }
            if (waiter.previous != null) {
                waiter.previous.next = waiter.next;
            } else {
                first = waiter.next;
            }
            if (waiter.next != null) {
                waiter.next.previous = waiter.previous;
            }
            waiter.previous = null;
            waiter.next = null;
            listed--;
            return true;
        } finally {
            listLock.unlock();
        }
    }

    private List<TaskWaiter> listedWaiters() {
        listLock.lock();
        try {
            List<TaskWaiter> all = new ArrayList<>(listed);
            for (TaskWaiter w = first; w != null; w = w.next) {
                all.add(w);
            }
            return all;
        } finally {
            listLock.unlock();
        }
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
        List<TaskWaiter> left = listedWaiters();
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
    private final class TaskWaiter extends Waiter implements Runnable, Parking.Attempt<TaskLock> {
        private static final int IDLE = 0;
        private static final int QUEUED = 1;
        private static final VarHandle STATE;

        static {
            try {
                STATE = MethodHandles.lookup().findVarHandle(TaskWaiter.class, "state", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        /** The caller's future; its completion, however it comes, ends the wait ({@link #ended()}). */
        final WaitFuture future = new WaitFuture();
        private final LockSpec spec;
        private final TaskOptions task;
        /** Its place among the waits under way; guarded by {@link #listLock}. */
        private TaskWaiter previous;
        private TaskWaiter next;
        /** Whether a try is queued on the task threads ({@link #QUEUED}); a field, not an atomic object per waiter. */
        private volatile int state = IDLE;
        /**
         * The lock a try took, set just before it completes the future with it: the future's value is an acquisition
         * only when it is this one, not a value of the caller's own ({@link #ended()}).
         */
        private TaskLock granted;

        TaskWaiter(LockSpec spec, TaskOptions task, LockKey key, long budgetNanos, FairTurn turn) {
            super(key, spec.mode(), budgetNanos, turn);
            this.spec = spec;
            this.task = task;
        }

        @Override
        public TaskLock take() throws LockException {
            return taskTry.take(spec, task, turn);
        }

        @Override
        void wake() {
            if (STATE.compareAndSet(this, IDLE, QUEUED)) {
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
                TaskLock lock = parking.tryOnce(this, this);
                granted = lock;
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
                state = IDLE;
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
                wakeTimes.wakeIn(this, pauseNanos);
            } catch (IllegalStateException stopped) {
                future.completeExceptionally(stopped);
            }
        }

        private void stopTimer() {
            wakeTimes.cancel(this);
        }

        /**
         * The future of this wait, which ends the wait when it completes, by whoever: one object where a future and a
         * completion stage on it would take three. Stages made from it are plain futures.
         */
        final class WaitFuture extends CompletableFuture<TaskLock> {
            @Override
            public boolean complete(TaskLock value) {
                return endsWait(super.complete(value));
            }

            @Override
            public boolean completeExceptionally(Throwable failure) {
                return endsWait(super.completeExceptionally(failure));
            }

            @Override
            public boolean cancel(boolean mayInterruptIfRunning) {
                return endsWait(super.cancel(mayInterruptIfRunning));
            }

            @Override
            public CompletableFuture<TaskLock> completeAsync(Supplier<? extends TaskLock> supplier, Executor executor) {
                // the default would complete it past complete(): through here, so that the wait ends
                Require.notNull(supplier, "supplier");
                Require.notNull(executor, "executor");
                executor.execute(() -> {
                    try {
                        complete(supplier.get());
                    } catch (Throwable failure) {
                        completeExceptionally(failure);
                    }
                });
                return this;
            }

            @Override
            public void obtrudeValue(TaskLock value) {
                throw new UnsupportedOperationException("a lock wait's future is completed by the wait, not forced");
            }

            @Override
            public void obtrudeException(Throwable failure) {
                throw new UnsupportedOperationException("a lock wait's future is completed by the wait, not forced");
            }

            @Override
            public <U> CompletableFuture<U> newIncompleteFuture() {
                return new CompletableFuture<>();
            }

            private boolean endsWait(boolean completedNow) {
                if (completedNow) {
                    ended();
                }
                return completedNow;
            }
        }

        /** The wait is over, however it ended: nothing of it is left behind. */
        void ended() {
            if (unlink(this)) {
                waiting.decrementAndGet();
            }
            stopTimer();
            // a caller that completes the future with a value of its own ends the wait as one that cancels it does
            boolean acquired = !future.isCompletedExceptionally() && granted != null && future.getNow(null) == granted;
            parking.leave(this, acquired);
            WaitResult result = acquired ? WaitResult.ACQUIRED
                    : !future.isCompletedExceptionally() || future.isCancelled() ? WaitResult.INTERRUPTED
                    : future.handle((l, e) -> resultOf(e instanceof java.util.concurrent.CompletionException c
                    && c.getCause() != null ? c.getCause() : e)).join();
            events.waited(key.name(), key.level(), mode, Duration.ofNanos(System.nanoTime() - startNanos), result);
        }
    }
}
