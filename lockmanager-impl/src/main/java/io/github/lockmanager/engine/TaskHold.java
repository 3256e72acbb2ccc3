package io.github.lockmanager.engine;

import io.github.lockmanager.GuardedHold;
import io.github.lockmanager.Lock;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.TaskLock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A task's lock: its one hold (of a key, or of each step of a path), and its {@link TaskOwner}, which tells the task
 * what became of it. Made once the hold is taken, and the owner told so: from then on its listener hears of it.
 */
final class TaskHold implements TaskLock {
    private final LockResource hold;
    private final TaskOwner owner;
    private final TaskThreads tasks;

    TaskHold(LockResource hold, TaskOwner owner, TaskThreads tasks) {
        this.hold = hold;
        this.owner = owner;
        this.tasks = tasks;
        owner.handedOut();
    }

    @Override
    public String getTaskName() {
        return owner.taskName();
    }

    @Override
    public CompletionStage<LockLossReason> whenEnded() {
        return owner.ended().copy();
    }

    @Override
    public boolean isAbortRequested() {
        return owner.isAbortRequested();
    }

    @Override
    public CompletionStage<Void> whenAbortRequested() {
        return owner.abortAsked().copy();
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
    public java.time.Duration remainingLease() {
        return hold.remainingLease();
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
        return "TaskLock[" + owner + ", " + hold + "]";
    }
}
