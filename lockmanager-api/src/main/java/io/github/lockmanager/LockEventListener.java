package io.github.lockmanager;

import java.time.Duration;

/**
 * Told what happens to the locks of one lock manager, for metrics and audit: every method has an empty default, so
 * a listener implements what it counts. One is given to the manager's builder; a manager without one builds no event
 * at all, so listening costs nothing when nobody listens.
 *
 * <p>Thread rules: each method is called on the thread where the event happens (the holder's for {@link #acquired},
 * {@link #refused} and most {@link #released}; the manager's keeper thread for renewals, held-too-long and releases
 * it makes; its watchdog or keeper for losses), possibly on several threads at once. Keep it short and never block:
 * the caller waits for it, and a slow listener slows locking. An exception thrown here is logged and otherwise
 * ignored.
 */
public interface LockEventListener {

    /** Listens to nothing; the manager's default. */
    LockEventListener NONE = new LockEventListener() {
    };

    /** A thread of this node took a lock (a fresh acquisition; re-entries are not events). */
    default void acquired(Lock lock) {
    }

    /**
     * A lock was refused: someone holds {@code key} in a conflicting mode. A blocking wait counts once, for its first
     * try: the tries after it waited for a release ({@link LockManager#waitForLock(LockSpec, Duration)} and its
     * siblings) are not refusals of their own, and how the wait ended is {@link #waited}.
     */
    default void refused(String key, LockLevel level, LockMode mode) {
    }

    /** An acquisition ended by its release (by its holder, by guarded work, at shutdown, or for a dead holder). */
    default void released(Lock lock, Duration heldFor) {
    }

    /** One renewal batch of {@code locks} locks was answered by the store, which took {@code took}. */
    default void renewed(int locks, Duration took) {
    }

    /** One renewal batch of {@code locks} locks failed; it is retried at the next tick. */
    default void renewalFailed(int locks, Exception cause) {
    }

    /** A held lock was lost; see {@link LockLossListener}, which is told as well. */
    default void lost(Lock lock, LockLossReason reason) {
    }

    /** An abort reached a holder of this node, which was interrupted. */
    default void aborted(Lock lock) {
    }

    /** A hold outlived the manager's held-too-long threshold (once per acquisition). */
    default void heldTooLong(Lock lock, Duration heldFor) {
    }

    /**
     * A wait for a lock began ({@link LockManager#waitForLock(LockSpec, Duration)}, a task's
     * {@link LockManager#lockForTaskAsync}), before its first try. Each is followed by exactly one {@link #waited}, so
     * that the waits under way are the ones started and not yet ended (a queue-length gauge).
     */
    default void waitStarted(String key, LockLevel level, LockMode mode) {
    }

    /**
     * A wait for a lock ({@link LockManager#waitForLock(LockSpec, Duration)}, a task's) ended; once per wait that
     * {@linkplain #waitStarted started}, on the waiting thread (a task's wait: on the thread that ended it).
     *
     * @param waited from the wait's start to its end
     */
    default void waited(String key, LockLevel level, LockMode mode, Duration waited, WaitResult result) {
    }

    /** How a blocking wait for a lock ended. */
    enum WaitResult {
        /** The waiter got the lock. */
        ACQUIRED,
        /** The wait's deadline passed first. */
        TIMED_OUT,
        /**
         * The waiting thread was interrupted; for a task's wait, its future was cancelled or completed with a value by
         * its caller.
         */
        INTERRUPTED,
        /** The store failed, or the lock could not be taken for another reason than a holder. */
        FAILED,
        /**
         * The wait was one of a cycle of waits across owners and was ended to break it
         * ({@link LockManagerException.ErrorCode#DEADLOCK}).
         */
        DEADLOCK
    }
}
