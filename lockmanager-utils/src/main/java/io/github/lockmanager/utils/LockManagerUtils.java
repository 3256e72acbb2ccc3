package io.github.lockmanager.utils;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.internal.Require;

import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * Helpers that run a task under a {@link LockManager} lock at the manager's default level and give the lock back
 * when the task ends, however it ends. They take the lock on the calling thread and run the task there; the waiting
 * ones wait as {@link LockManager#waitForLock(String, Duration)} does.
 */
public final class LockManagerUtils {
    private LockManagerUtils() {
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
        try (LockResource ignored = checkManager(lockManager).waitForLock(key, maxWait)) {
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
        try (LockResource ignored = checkManager(lockManager).waitForLock(key, maxWait)) {
            task.run();
        }
    }

    private static LockManager checkManager(LockManager lockManager) {
        return Require.notNull(lockManager, "lockManager");
    }

    private static void checkTask(Object task) {
        Require.notNull(task, "task");
    }
}
