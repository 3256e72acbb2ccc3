package io.github.lockmanager.utils;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockEventListener.WaitResult;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.internal.Require;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Blocking waits for a {@link LockManager} lock, and helpers that run a task under a lock.
 *
 * <p>Waits poll the store every wait interval for a lock held on another node; a lock held by another thread
 * of the same node wakes the waiter as soon as it is released ({@link LockManager#awaitLocalRelease}). Waits
 * are interruptible; an {@link io.github.lockmanager.LockManagerException} from the manager ends a wait at once.
 * The returned {@link LockResource} is one hold, to be closed by the caller as {@link LockManager} describes.
 */
public final class LockManagerUtils {
    private LockManagerUtils() {
    }

    /**
     * Waits, without a deadline, until the calling thread holds {@code key} at the manager's default level.
     *
     * @param waitIntervalMillis the longest wait between tries while another node holds the key (the first waits an
     *                           eighth of it, later ones back off to it, each drawn at random from its upper half);
     *                           positive
     * @throws InterruptedException     if the thread is interrupted while waiting
     * @throws LockException            a {@link io.github.lockmanager.LockManagerException} from the manager
     * @throws IllegalArgumentException if an argument is invalid
     */
    public static LockResource waitForLock(LockManager lockManager, String key, long waitIntervalMillis)
            throws LockException, InterruptedException {
        checkManager(lockManager);
        return waitForLock(lockManager, key, lockManager.getDefaultLevel(), waitIntervalMillis);
    }

    /**
     * Waits until the calling thread holds {@code key} at the manager's default level, for at most
     * {@code timeoutMillis}: no wait between tries reaches past the deadline.
     *
     * @param timeoutMillis zero or more; zero makes one try
     * @throws TimeoutException if the deadline passed without the lock
     * @see #waitForLock(LockManager, String, long)
     */
    public static LockResource waitForLock(LockManager lockManager, String key, long waitIntervalMillis,
                                           long timeoutMillis) throws LockException, TimeoutException, InterruptedException {
        checkManager(lockManager);
        return waitForLock(lockManager, key, lockManager.getDefaultLevel(), waitIntervalMillis, timeoutMillis);
    }

    /** {@link #waitForLock(LockManager, String, long, long)} at {@code level}. */
    public static LockResource waitForLock(LockManager lockManager, String key, LockLevel level, long waitIntervalMillis,
                                           long timeoutMillis) throws LockException, TimeoutException, InterruptedException {
        checkManager(lockManager);
        return await(() -> lockManager.lock(key, level), lockManager, key, level, LockMode.EXCLUSIVE, waitIntervalMillis,
                true, deadline(timeoutMillis));
    }

    /** {@link #waitForLock(LockManager, String, long)} at {@code level}. */
    public static LockResource waitForLock(LockManager lockManager, String key, LockLevel level, long waitIntervalMillis)
            throws LockException, InterruptedException {
        checkManager(lockManager);
        return awaitWithoutDeadline(() -> lockManager.lock(key, level), lockManager, key, level, LockMode.EXCLUSIVE,
                waitIntervalMillis);
    }

    /**
     * Waits until the calling thread holds {@code key} {@linkplain LockManager#lockShared shared} at the manager's
     * default level, for at most {@code timeoutMillis}, as {@link #waitForLock(LockManager, String, long, long)} waits
     * for an exclusive lock. A reader waits for writers only, never for other readers; nothing is reserved while it
     * waits, so neither a waiting reader nor a waiting writer keeps the other out (there is no writer preference).
     *
     * @throws TimeoutException if the deadline passed without the lock
     */
    public static LockResource waitForSharedLock(LockManager lockManager, String key, long waitIntervalMillis,
                                                 long timeoutMillis) throws LockException, TimeoutException, InterruptedException {
        checkManager(lockManager);
        return waitForSharedLock(lockManager, key, lockManager.getDefaultLevel(), waitIntervalMillis, timeoutMillis);
    }

    /** {@link #waitForSharedLock(LockManager, String, long, long)} at {@code level}. */
    public static LockResource waitForSharedLock(LockManager lockManager, String key, LockLevel level,
                                                 long waitIntervalMillis, long timeoutMillis)
            throws LockException, TimeoutException, InterruptedException {
        checkManager(lockManager);
        return await(() -> lockManager.lockShared(key, level), lockManager, key, level, LockMode.SHARED,
                waitIntervalMillis, true, deadline(timeoutMillis));
    }

    /**
     * Waits, without a deadline, until the calling thread holds {@code key} {@linkplain LockManager#lockShared shared}
     * at {@code level}, as {@link #waitForSharedLock(LockManager, String, LockLevel, long, long)} waits with one.
     *
     * @throws InterruptedException if the thread is interrupted while waiting
     */
    public static LockResource waitForSharedLock(LockManager lockManager, String key, LockLevel level,
                                                 long waitIntervalMillis) throws LockException, InterruptedException {
        checkManager(lockManager);
        return awaitWithoutDeadline(() -> lockManager.lockShared(key, level), lockManager, key, level, LockMode.SHARED,
                waitIntervalMillis);
    }

    /**
     * {@link #waitForLock(LockManager, String, LockLevel, long, long)} for a lock with a lease of its own
     * ({@link LockManager#lock(String, LockLevel, Duration)}).
     */
    public static LockResource waitForLock(LockManager lockManager, String key, LockLevel level, Duration lease,
                                           long waitIntervalMillis, long timeoutMillis)
            throws LockException, TimeoutException, InterruptedException {
        checkManager(lockManager);
        return await(() -> lockManager.lock(key, level, lease), lockManager, key, level, LockMode.EXCLUSIVE,
                waitIntervalMillis, true, deadline(timeoutMillis));
    }

    /** {@link #waitForLock(LockManager, String, LockLevel, long)} for a lock with a lease of its own. */
    public static LockResource waitForLock(LockManager lockManager, String key, LockLevel level, Duration lease,
                                           long waitIntervalMillis) throws LockException, InterruptedException {
        checkManager(lockManager);
        return awaitWithoutDeadline(() -> lockManager.lock(key, level, lease), lockManager, key, level,
                LockMode.EXCLUSIVE, waitIntervalMillis);
    }

    /**
     * {@link #waitForSharedLock(LockManager, String, LockLevel, long, long)} for a lock with a lease of its own
     * ({@link LockManager#lockShared(String, LockLevel, Duration)}).
     */
    public static LockResource waitForSharedLock(LockManager lockManager, String key, LockLevel level, Duration lease,
                                                 long waitIntervalMillis, long timeoutMillis)
            throws LockException, TimeoutException, InterruptedException {
        checkManager(lockManager);
        return await(() -> lockManager.lockShared(key, level, lease), lockManager, key, level, LockMode.SHARED,
                waitIntervalMillis, true, deadline(timeoutMillis));
    }

    /** {@link #waitForSharedLock(LockManager, String, LockLevel, long)} for a lock with a lease of its own. */
    public static LockResource waitForSharedLock(LockManager lockManager, String key, LockLevel level, Duration lease,
                                                 long waitIntervalMillis) throws LockException, InterruptedException {
        checkManager(lockManager);
        return awaitWithoutDeadline(() -> lockManager.lockShared(key, level, lease), lockManager, key, level,
                LockMode.SHARED, waitIntervalMillis);
    }

    private static long deadline(long timeoutMillis) {
        if (timeoutMillis < 0) {
            throw new IllegalArgumentException("timeoutMillis must be zero or more, was " + timeoutMillis);
        }
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    }

    /** One try at the lock a wait is for. */
    @FunctionalInterface
    private interface Attempt {
        LockResource take() throws LockException;
    }

    /**
     * Waits as {@link #poll} does and reports how the wait ended to the manager's event listener; a call refused for
     * its arguments or a closed manager was no wait and is not reported.
     */
    private static LockResource await(Attempt attempt, LockManager lockManager, String key, LockLevel level,
                                      LockMode mode, long waitIntervalMillis, boolean hasDeadline, long deadlineNanos)
            throws LockException, TimeoutException, InterruptedException {
        if (waitIntervalMillis <= 0) {
            throw new IllegalArgumentException("waitIntervalMillis must be positive, was " + waitIntervalMillis);
        }
        long start = System.nanoTime();
        WaitResult result = WaitResult.FAILED;
        try {
            LockResource lock = poll(attempt, lockManager, key, level, waitIntervalMillis, hasDeadline, deadlineNanos);
            result = WaitResult.ACQUIRED;
            return lock;
        } catch (TimeoutException e) {
            result = WaitResult.TIMED_OUT;
            throw e;
        } catch (InterruptedException e) {
            result = WaitResult.INTERRUPTED;
            throw e;
        } catch (IllegalArgumentException | IllegalStateException e) {
            result = null;
            throw e;
        } finally {
            if (result != null) {
                lockManager.waitEnded(key, level, mode, Duration.ofNanos(System.nanoTime() - start), result);
            }
        }
    }

    private static LockResource awaitWithoutDeadline(Attempt attempt, LockManager lockManager, String key,
                                                     LockLevel level, LockMode mode, long waitIntervalMillis)
            throws LockException, InterruptedException {
        try {
            return await(attempt, lockManager, key, level, mode, waitIntervalMillis, false, 0);
        } catch (TimeoutException e) {
            throw new IllegalStateException("a wait without a deadline cannot time out", e);
        }
    }

    private static LockResource poll(Attempt attempt, LockManager lockManager, String key, LockLevel level,
                                     long waitIntervalMillis, boolean hasDeadline, long deadlineNanos)
            throws LockException, TimeoutException, InterruptedException {
        long intervalNanos = TimeUnit.MILLISECONDS.toNanos(waitIntervalMillis);
        PollBackoff backoff = new PollBackoff(intervalNanos, ThreadLocalRandom.current());
        while (true) {
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for lock '" + key + "'");
            }
            try {
                return attempt.take();
            } catch (AlreadyLockedException held) {
                // this node's holder wakes its waiters when it lets go; a holder elsewhere is waited for where the store
                // announces releases, else polled
                long wait = held.isHeldOnThisNode() ? intervalNanos : backoff.nextNanos();
                if (hasDeadline) {
                    long remaining = deadlineNanos - System.nanoTime();
                    if (remaining <= 0) {
                        TimeoutException timeout = new TimeoutException("lock '" + key + "' was not free in time: "
                                + held.getMessage());
                        timeout.initCause(held);
                        throw timeout;
                    }
                    wait = Math.min(wait, remaining);
                }
                if (held.isHeldOnThisNode()) {
                    lockManager.awaitLocalRelease(key, level, wait, TimeUnit.NANOSECONDS);
                } else if (!lockManager.awaitRemoteRelease(key, level, wait, TimeUnit.NANOSECONDS)) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
            }
        }
    }

    /**
     * Runs {@code task} under the lock of {@code key} if it is free now, and releases the lock afterwards.
     *
     * @throws AlreadyLockedException if the key is held; the task did not run
     * @throws Exception              whatever the task throws
     */
    public static <T> T callWithLock(LockManager lockManager, String key, Callable<T> task) throws Exception {
        checkManager(lockManager);
        checkTask(task);
        try (LockResource ignored = lockManager.lock(key)) {
            return task.call();
        }
    }

    /**
     * Waits for the lock of {@code key} as {@link #waitForLock(LockManager, String, long, long)} does, runs
     * {@code task} under it, and releases it afterwards.
     *
     * @throws TimeoutException if the lock was not had in time; the task did not run
     * @throws Exception        whatever the task throws
     */
    public static <T> T callWithLock(LockManager lockManager, String key, long waitIntervalMillis, long timeoutMillis,
                                     Callable<T> task) throws Exception {
        checkTask(task);
        try (LockResource ignored = waitForLock(lockManager, key, waitIntervalMillis, timeoutMillis)) {
            return task.call();
        }
    }

    /**
     * Runs {@code task} under the lock of {@code key} if it is free now, and releases the lock afterwards.
     *
     * @throws AlreadyLockedException if the key is held; the task did not run
     */
    public static void runWithLock(LockManager lockManager, String key, Runnable task) throws LockException {
        checkManager(lockManager);
        checkTask(task);
        try (LockResource ignored = lockManager.lock(key)) {
            task.run();
        }
    }

    /**
     * Waits for the lock of {@code key} as {@link #waitForLock(LockManager, String, long, long)} does, runs
     * {@code task} under it, and releases it afterwards.
     *
     * @throws TimeoutException if the lock was not had in time; the task did not run
     */
    public static void runWithLock(LockManager lockManager, String key, long waitIntervalMillis, long timeoutMillis,
                                   Runnable task) throws LockException, TimeoutException, InterruptedException {
        checkTask(task);
        try (LockResource ignored = waitForLock(lockManager, key, waitIntervalMillis, timeoutMillis)) {
            task.run();
        }
    }

    private static void checkManager(LockManager lockManager) {
        Require.notNull(lockManager, "lockManager");
    }

    private static void checkTask(Object task) {
        Require.notNull(task, "task");
    }
}
