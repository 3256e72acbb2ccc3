package io.github.lockmanager;

/**
 * Told when a lock held on this node is lost. Called on one of the lock manager's own threads after the
 * holder thread was interrupted; keep it short and do not block in it. An exception thrown here is logged
 * and otherwise ignored.
 */
@FunctionalInterface
public interface LockLossListener {
    /**
     * @param lock   the lock as it was when last confirmed
     * @param holder the holding thread, or {@code null} if it is gone
     * @param reason why it was lost
     */
    void lockLost(Lock lock, Thread holder, LockLossReason reason);
}
