package io.github.lockmanager.utils;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.internal.Require;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeoutException;

/**
 * Hippo's blocking waits for a {@link LockManager} lock ({@code waitForLock}: the cluster-wide
 * {@code ReentrantLock.lock()} and {@code tryLock(timeout)}), and helpers that run a task under a lock at the
 * manager's default level and give the lock back when the task ends, however it ends. All of them take the lock on
 * the calling thread; the waiting ones wait as {@link LockManager#waitForLock(io.github.lockmanager.LockSpec, Duration)} does: woken at once
 * by a release on this node and, where the store announces releases, on any node, else asking the store again after a
 * pause that grows to the manager's wait poll interval. Each wait is one wait for the manager's events and meters.
 */
public final class LockManagerUtils {
    private LockManagerUtils() {
    }

    /**
     * Waits, without a deadline, until the calling thread holds {@code key} at the manager's default level (Hippo's
     * {@code LockManagerUtils.waitForLock}). A thread that holds the key already adds a hold at once.
     *
     * @param waitIntervalMillis Hippo's pause between tries, positive. Kept for Hippo's callers, it sets nothing: the
     *                           wait here is woken by releases, and asks the store again on the manager's schedule
     *                           (the builder's {@code waitPollInterval}, 100 ms by default, where the store announces
     *                           no releases)
     * @return the hold; give it back with {@link LockResource#close()} or {@link LockManager#unlock(String)}
     * @throws InterruptedException     if the thread is interrupted before or while it waits; nothing is held then
     * @throws LockException            a {@link io.github.lockmanager.LockManagerException} if the store failed
     * @throws IllegalArgumentException if the manager or key is invalid, or {@code waitIntervalMillis} is not positive
     */
    public static LockResource waitForLock(LockManager lockManager, String key, long waitIntervalMillis)
            throws LockException, InterruptedException {
        checkInterval(waitIntervalMillis);
        return checkManager(lockManager).waitForLock(LockSpec.of(key), FOREVER);
    }

    /**
     * Waits until the calling thread holds {@code key} at the manager's default level, for at most
     * {@code timeoutMillis} (Hippo's {@code LockManagerUtils.waitForLock} with a timeout), as
     * {@link #waitForLock(LockManager, String, long)} waits without one.
     *
     * @param timeoutMillis zero or more; zero makes one try
     * @throws TimeoutException         if the timeout passed without the lock; its cause is the last refusal, which
     *                                  names the holder; nothing is held then
     * @throws InterruptedException     if the thread is interrupted before or while it waits; nothing is held then
     * @throws LockException            a {@link io.github.lockmanager.LockManagerException} if the store failed
     * @throws IllegalArgumentException if the manager or key is invalid, {@code waitIntervalMillis} is not positive or
     *                                  {@code timeoutMillis} negative
     */
    public static LockResource waitForLock(LockManager lockManager, String key, long waitIntervalMillis,
                                           long timeoutMillis) throws LockException, TimeoutException, InterruptedException {
        checkInterval(waitIntervalMillis);
        Require.argument(timeoutMillis >= 0, "timeoutMillis must be zero or more, was %d", timeoutMillis);
        try {
            return checkManager(lockManager).waitForLock(LockSpec.of(key), Duration.ofMillis(timeoutMillis));
        } catch (AlreadyLockedException refused) {
            TimeoutException timedOut = new TimeoutException("timed out after " + timeoutMillis + " ms waiting for lock '"
                    + key + "': " + refused.getMessage());
            timedOut.initCause(refused);
            throw timedOut;
        }
    }

    /**
     * Runs {@code task} under the lock of {@code key} if it is free now, and releases the lock afterwards.
     *
     * @return what the task returned
     * @throws AlreadyLockedException if the key is held; the task did not run
     * @throws Exception              whatever the task throws
     */
    public static <T> T callWithLock(LockManager lockManager, String key, Callable<T> task) throws Exception {
        checkTask(task);
        try (LockResource ignored = checkManager(lockManager).lock(key)) {
            return task.call();
        }
    }

    /**
     * Waits up to {@code maxWait} for the lock of {@code key}, runs {@code task} under it, and releases it afterwards.
     *
     * @return what the task returned
     * @throws AlreadyLockedException if {@code maxWait} passed before the lock was free; the task did not run
     * @throws InterruptedException   if interrupted while waiting; the task did not run
     * @throws Exception              whatever the task throws
     */
    public static <T> T callWithLock(LockManager lockManager, String key, Duration maxWait, Callable<T> task)
            throws Exception {
        checkTask(task);
        try (LockResource ignored = checkManager(lockManager).waitForLock(LockSpec.of(key), maxWait)) {
            return task.call();
        }
    }

    /**
     * Runs {@code task} under the lock of {@code key} if it is free now, and releases the lock afterwards.
     *
     * @throws AlreadyLockedException if the key is held; the task did not run
     */
    public static void runWithLock(LockManager lockManager, String key, Runnable task) throws LockException {
        checkTask(task);
        try (LockResource ignored = checkManager(lockManager).lock(key)) {
            task.run();
        }
    }

    /**
     * Waits up to {@code maxWait} for the lock of {@code key}, runs {@code task} under it, and releases it afterwards.
     *
     * @throws AlreadyLockedException if {@code maxWait} passed before the lock was free; the task did not run
     * @throws InterruptedException   if interrupted while waiting; the task did not run
     */
    public static void runWithLock(LockManager lockManager, String key, Duration maxWait, Runnable task)
            throws LockException, InterruptedException {
        checkTask(task);
        try (LockResource ignored = checkManager(lockManager).waitForLock(LockSpec.of(key), maxWait)) {
            task.run();
        }
    }

    /** Long enough to count as no deadline: the manager waits until the lock is taken. */
    private static final Duration FOREVER = java.time.temporal.ChronoUnit.FOREVER.getDuration();

    private static void checkInterval(long waitIntervalMillis) {
        Require.argument(waitIntervalMillis > 0, "waitIntervalMillis must be positive, was %d", waitIntervalMillis);
    }

    private static LockManager checkManager(LockManager lockManager) {
        return Require.notNull(lockManager, "lockManager");
    }

    private static void checkTask(Object task) {
        Require.notNull(task, "task");
    }
}
