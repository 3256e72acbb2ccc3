package io.github.lockmanager;

/**
 * Told what happens to a {@link TaskLock}, in place of the interrupt a thread's lock gives its holder (Alfresco's job
 * lock callback). Each method is called at most once per lock, on whichever thread found out: one of the manager's
 * threads, or a thread that called into the manager. Keep them short and do not block; an exception thrown here is
 * logged and otherwise ignored. Every method does nothing unless overridden.
 */
public interface TaskLockListener {

    /**
     * An abort of the lock was asked for (on any node), or the manager is closing: the task should stop its work and
     * release the lock. The lock stays held until it does, or until its lease ends.
     */
    default void abortRequested(Lock lock) {
    }

    /** The lock was lost: the task must stop the work it protects. {@link TaskLock#whenEnded()} completes after this. */
    default void lost(Lock lock, LockLossReason reason) {
    }

    /** The lock was released: by the task, because it said it is no longer active, or by the manager's shutdown. */
    default void released(Lock lock) {
    }
}
