package io.github.lockmanager.engine;

import io.github.lockmanager.Lock;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.TaskLockListener;
import io.github.lockmanager.TaskOptions;
import io.github.lockmanager.spi.LockHandle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * An exclusive acquisition owned by a task, not a thread: no thread to interrupt or to outlive, so its task is told
 * through its listener and {@link #ended()}, and its "still active" check stands in for a live thread. It is never
 * re-entered: a second hold would have no thread to belong to.
 */
final class TaskAcquisition extends Acquisition {
    private static final Logger log = LoggerFactory.getLogger(TaskAcquisition.class);

    private final String nodeId;
    private final String taskName;
    private final BooleanSupplier active;
    private final TaskLockListener listener;
    private final CompletableFuture<LockLossReason> ended = new CompletableFuture<>();
    private final CompletableFuture<Void> abortAsked = new CompletableFuture<>();
    private final AtomicBoolean endTold = new AtomicBoolean();
    private volatile boolean abortRequested;
    private volatile boolean activeCheckFailed;

    TaskAcquisition(LockHandle handle, TaskOptions task, LeasePolicy leases, String nodeId) {
        super(handle, null, "task:" + task.name(), leases);
        this.nodeId = nodeId;
        this.taskName = task.name();
        this.active = task.active();
        this.listener = task.listener();
    }

    String taskName() {
        return taskName;
    }

    /** Completes with {@code null} once released, or with the reason it was lost. */
    CompletableFuture<LockLossReason> ended() {
        return ended;
    }

    boolean isAbortRequested() {
        return abortRequested;
    }

    /** Completes once an abort is asked for, after the listener was told. */
    CompletableFuture<Void> abortAsked() {
        return abortAsked;
    }

    /** Asks the task's check; one that throws counts as active (the failure is logged once). */
    @Override
    boolean isHolderAlive() {
        if (active == null) {
            return true;
        }
        try {
            return active.getAsBoolean();
        } catch (RuntimeException e) {
            if (!activeCheckFailed) {
                activeCheckFailed = true;
                log.error("Active check of {} failed; the task counts as active and its lock is kept", this, e);
            }
            return true;
        }
    }

    @Override
    String holderGone() {
        return "Task '" + taskName + "' said it is no longer active";
    }

    @Override
    String holderText() {
        return "task '" + taskName + "'";
    }

    @Override
    void abortRequested(String nodeId) {
        abortRequested = true;
        log.info("Abort requested for lock {} on node '{}': its task is told; the lock stays held until the task "
                + "releases it or its lease ends", this, nodeId);
        tell(l -> listener.abortRequested(l), "abortRequested");
        abortAsked.complete(null);
    }

    @Override
    void toldLost(String nodeId, LockLossReason reason) {
        if (endTold.compareAndSet(false, true)) {
            tell(l -> listener.lost(l, reason), "lost");
            ended.complete(reason);
        }
    }

    /** Gone without a loss: released (by the task, for its inactivity, or at shutdown); the task is told. */
    @Override
    void markGone() {
        super.markGone();
        if (!isLost() && wasGranted() && endTold.compareAndSet(false, true)) {
            tell(listener::released, "released");
            ended.complete(null);
        }
    }

    private void tell(Consumer<Lock> call, String what) {
        try {
            call.accept(grantedLock(nodeId));
        } catch (RuntimeException e) {
            log.error("Task lock listener ({}) failed for lock {}", what, this, e);
        }
    }
}
