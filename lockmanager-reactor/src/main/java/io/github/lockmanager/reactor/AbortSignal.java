package io.github.lockmanager.reactor;

import io.github.lockmanager.Lock;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.TaskLockListener;

import java.util.concurrent.CompletableFuture;

/**
 * The task's own listener, told first, and a stage that completes when an abort of the lock is asked for (from any
 * node, or by the manager's shutdown): how the abort that interrupts a thread's holder reaches work that has no thread.
 * One per subscription, made before the lock is asked for, so that no abort after the grant is missed.
 */
final class AbortSignal implements TaskLockListener {
    private final TaskLockListener task;
    final CompletableFuture<Void> asked = new CompletableFuture<>();

    AbortSignal(TaskLockListener task) {
        this.task = task;
    }

    @Override
    public void abortRequested(Lock lock) {
        try {
            task.abortRequested(lock);
        } finally {
            asked.complete(null);
        }
    }

    @Override
    public void lost(Lock lock, LockLossReason reason) {
        task.lost(lock, reason);
    }

    @Override
    public void released(Lock lock) {
        task.released(lock);
    }
}
