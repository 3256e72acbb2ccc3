package io.github.lockmanager.engine;

import io.github.lockmanager.Lock;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.TaskLockListener;
import io.github.lockmanager.TaskOptions;
import io.github.lockmanager.spi.LockHandle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The task one {@link io.github.lockmanager.TaskLock} belongs to: its name, "still active" check and listener, and what
 * became of its lock. One task lock is one owner, with one acquisition for a key or one per step of a path; the first
 * of them to end ends the lock. Nothing is told before the lock is handed out ({@link #handedOut}): a path refused
 * half-way gives its steps back without telling a listener of a lock the caller never got.
 */
final class TaskOwner implements Owner, TaskAcquisition.Task {
    private static final Logger log = LoggerFactory.getLogger(TaskOwner.class);
    /** Tasks' ids count down from -1, so they never meet a thread's id in the table. */
    private static final AtomicLong IDS = new AtomicLong();

    private final long id = IDS.decrementAndGet();
    private final String nodeId;
    private final String taskName;
    private final String holderName;
    private final BooleanSupplier active;
    private final TaskLockListener listener;
    private final CompletableFuture<LockLossReason> ended = new CompletableFuture<>();
    private final CompletableFuture<Void> abortAsked = new CompletableFuture<>();
    private volatile boolean activeCheckFailed;
    // under this object's monitor: what happened, and whether the task was told; never held while telling
    private boolean handedOut;
    /** The lock an abort was asked for, once one was. */
    private Lock abortedLock;
    private boolean abortTold;
    /** The lock as it ended, once it did; {@link #endReason} null for a release. */
    private Lock endedLock;
    private LockLossReason endReason;
    private boolean endTold;

    TaskOwner(TaskOptions task, String nodeId) {
        this.nodeId = nodeId;
        this.taskName = task.name();
        this.holderName = "task:" + task.name();
        this.active = task.active();
        this.listener = task.listener();
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public String name() {
        return holderName;
    }

    /** A task never re-enters: each call for a task is a lock of its own. */
    @Override
    public boolean holds(Acquisition held) {
        return false;
    }

    @Override
    public Acquisition acquisition(LockHandle handle, LockMode mode, int permits, LeasePolicy leases) {
        return new TaskAcquisition(handle, this, mode, permits, leases);
    }

    @Override
    public String nodeId() {
        return nodeId;
    }

    @Override
    public String taskName() {
        return taskName;
    }

    /** Completes with {@code null} once released, or with the reason it was lost. */
    CompletableFuture<LockLossReason> ended() {
        return ended;
    }

    /** Completes once an abort is asked for, after the listener was told. */
    CompletableFuture<Void> abortAsked() {
        return abortAsked;
    }

    synchronized boolean isAbortRequested() {
        return abortedLock != null;
    }

    /** Asks the task's check; one that throws counts as active (the failure is logged once). */
    @Override
    public boolean isActive() {
        if (active == null) {
            return true;
        }
        try {
            return active.getAsBoolean();
        } catch (RuntimeException e) {
            if (!activeCheckFailed) {
                activeCheckFailed = true;
                log.error("Active check of task '{}' on node '{}' failed; the task counts as active and its lock is "
                        + "kept", taskName, nodeId, e);
            }
            return true;
        }
    }

    /** The lock goes to the caller now: what happened to it meanwhile is told now. */
    void handedOut() {
        Lock abort;
        Lock end;
        synchronized (this) {
            handedOut = true;
            abort = abortToTell();
            end = endToTell();
        }
        tell(abort, end);
    }

    /** An abort of one of its acquisitions was asked for; the task is told once. */
    @Override
    public void abortRequested(Lock lock) {
        Lock abort;
        synchronized (this) {
            if (abortedLock == null) {
                abortedLock = lock;
            }
            abort = abortToTell();
        }
        if (abort != null) {
            log.info("Abort requested for lock '{}' of task '{}' on node '{}': the task is told; the lock stays held "
                    + "until the task releases it or its lease ends", lock.getKey(), taskName, nodeId);
        }
        tell(abort, null);
    }

    /** One of its acquisitions ended: released ({@code reason} null) or lost. The first end is the lock's. */
    @Override
    public void ended(Lock lock, LockLossReason reason) {
        Lock end;
        synchronized (this) {
            if (endedLock != null) {
                return;
            }
            endedLock = lock;
            endReason = reason;
            end = endToTell();
        }
        tell(null, end);
    }

    private Lock abortToTell() {
        if (!handedOut || abortedLock == null || abortTold) {
            return null;
        }
        abortTold = true;
        return abortedLock;
    }

    private Lock endToTell() {
        if (!handedOut || endedLock == null || endTold) {
            return null;
        }
        endTold = true;
        return endedLock;
    }

    /** Tells the listener, then completes the stages, outside the monitor: a listener may call back in. */
    private void tell(Lock aborted, Lock end) {
        if (aborted != null) {
            call(() -> listener.abortRequested(aborted), "abortRequested", aborted);
            abortAsked.complete(null);
        }
        if (end != null) {
            LockLossReason reason;
            synchronized (this) {
                reason = endReason;
            }
            call(reason == null ? () -> listener.released(end) : () -> listener.lost(end, reason),
                    reason == null ? "released" : "lost", end);
            ended.complete(reason);
        }
    }

    private void call(Runnable call, String what, Lock lock) {
        try {
            call.run();
        } catch (RuntimeException e) {
            log.error("Task lock listener ({}) of task '{}' failed for lock {}", what, taskName, lock, e);
        }
    }

    @Override
    public String toString() {
        return "task '" + taskName + "'";
    }
}
