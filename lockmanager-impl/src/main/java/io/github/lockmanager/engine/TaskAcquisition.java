package io.github.lockmanager.engine;

import io.github.lockmanager.Lock;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.LockHandle;

/**
 * An acquisition owned by a task, in any mode: no thread to interrupt or to outlive, so its task
 * is told through its owner, and the owner's "still active" check stands in for a live thread. It is never
 * re-entered: a second hold would have no thread to belong to. Its place in the table (for a non-exclusive mode) is
 * keyed by the task's own id, so two tasks, or a task and a thread, hold one key shared side by side.
 */
final class TaskAcquisition extends Acquisition {
    /** What a task acquisition tells its task of, and asks it ({@link TaskOwner}). */
    interface Task {
        long id();

        String name();

        String taskName();

        String nodeId();

        /** Whether the task still needs its lock. */
        boolean isActive();

        void abortRequested(Lock lock);

        /** The acquisition ended: released ({@code reason} null) or lost. */
        void ended(Lock lock, LockLossReason reason);
    }

    private final Task owner;
    private final LockMode mode;
    private final int permits;
    private final Place place;

    /** The name of the task that holds it: a task is known by its name, for what its requests say it holds. */
    String taskName() {
        return owner.taskName();
    }

    TaskAcquisition(LockHandle handle, Task owner, LockMode mode, int permits, LeasePolicy leases) {
        super(handle, null, owner.name(), leases);
        this.owner = owner;
        this.mode = mode;
        this.permits = permits;
        this.place = mode == LockMode.EXCLUSIVE ? null
                : new Place(handle.key().level(), handle.key().name(), owner.id(), mode);
    }

    @Override
    LockMode mode() {
        return mode;
    }

    @Override
    int permits() {
        return permits;
    }

    @Override
    Place place() {
        return place;
    }

    @Override
    boolean isHolderAlive() {
        return owner.isActive();
    }

    @Override
    String holderGone() {
        return "Task '" + owner.taskName() + "' said it is no longer active";
    }

    @Override
    String holderText() {
        return owner.toString();
    }

    @Override
    void abortRequested(String nodeId) {
        owner.abortRequested(grantedLock(nodeId));
    }

    @Override
    void toldLost(String nodeId, LockLossReason reason) {
        owner.ended(grantedLock(nodeId), reason);
    }

    /** Gone without a loss: released (by the task, for its inactivity, or at shutdown); the owner is told. */
    @Override
    void markGone() {
        super.markGone();
        if (!isLost() && wasGranted()) {
            owner.ended(grantedLock(owner.nodeId()), null);
        }
    }
}
