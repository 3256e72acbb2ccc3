package io.github.lockmanager;

/**
 * Told when a lock held on this node is lost, once per acquisition. Called on the thread that found the loss: one of
 * the lock manager's own (renewal, the watchdog), the caller of {@code forceRelease} on this node, or the holder's or
 * any thread that asked {@code isLost()}, lent the hold to guarded work or closed it after the lease may have ended.
 * A holder still holding is interrupted before the call. Keep it short and do not block in it; an exception thrown
 * here is logged and otherwise ignored.
 */
@FunctionalInterface
public interface LockLossListener {
    /**
     * @param lock   the lock as it was when last confirmed
     * @param holder the holding thread, or {@code null} if it is gone or the lock is a {@link TaskLock}
     * @param reason why it was lost
     */
    void lockLost(Lock lock, Thread holder, LockLossReason reason);
}
