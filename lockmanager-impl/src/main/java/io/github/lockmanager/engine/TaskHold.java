package io.github.lockmanager.engine;

import io.github.lockmanager.GuardedHold;
import io.github.lockmanager.Lock;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.TaskLock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** The one hold of a task's acquisition: a {@link HoldResource} that also tells the task what became of its lock. */
final class TaskHold implements TaskLock {
    private final HoldResource hold;
    private final TaskAcquisition acquisition;
    private final AsyncWaits tasks;

    TaskHold(Releaser releaser, TaskAcquisition acquisition, AsyncWaits tasks) {
        this.hold = new HoldResource(releaser, acquisition, true);
        this.acquisition = acquisition;
        this.tasks = tasks;
    }

    @Override
    public String getTaskName() {
        return acquisition.taskName();
    }

    @Override
    public CompletionStage<LockLossReason> whenEnded() {
        return acquisition.ended().copy();
    }

    @Override
    public boolean isAbortRequested() {
        return acquisition.isAbortRequested();
    }

    @Override
    public CompletionStage<Void> whenAbortRequested() {
        return acquisition.abortAsked().copy();
    }

    @Override
    public CompletionStage<Void> releaseAsync() {
        CompletableFuture<Void> released = new CompletableFuture<>();
        tasks.run(() -> {
            close();
            released.complete(null);
        });
        return released;
    }

    @Override
    public void close() {
        hold.close();
    }

    @Override
    public void closeHeldAtLeast(Duration atLeast) {
        hold.closeHeldAtLeast(atLeast);
    }

    @Override
    public boolean isClosed() {
        return hold.isClosed();
    }

    @Override
    public Lock getLock() {
        return hold.getLock();
    }

    @Override
    public boolean isNewLock() {
        return true;
    }

    @Override
    public Thread getHolder() {
        return null;
    }

    @Override
    public boolean isLost() {
        return hold.isLost();
    }

    @Override
    public long getFencingToken() {
        return hold.getFencingToken();
    }

    @Override
    public GuardedHold guard() throws LockLostException {
        return hold.guard();
    }

    @Override
    public String toString() {
        return "TaskLock[" + acquisition + (isClosed() ? ", closed" : "") + (acquisition.isLost() ? ", lost" : "") + "]";
    }
}
