package io.github.lockmanager;

import java.util.concurrent.CompletionStage;

/**
 * A lock owned by a task rather than a thread ({@link LockManager#lockForTask}): any thread may use this handle and
 * close it, so work that moves between threads (a {@code CompletableFuture} chain, a reactive pipeline, a coroutine)
 * can hold a lock from start to end. It is renewed, listed, aborted, counted and lost as a thread's lock is; it is
 * never re-entered (each call for a task is a lock of its own, refused while another holds the key).
 *
 * <p>No thread can be interrupted for it, so the task learns what happens to its lock here: {@link #whenEnded()}
 * completes when it ends, and the {@link TaskLockListener} given with {@link TaskOptions#listener} is called when an
 * abort is asked for, when the lock is lost and when it is released. Once lost, {@link #guard()} refuses work.
 *
 * <p>Thread rules: every method may be called from any thread; {@link #close()} and {@link #releaseAsync()} release
 * the lock once, whichever comes first. {@link #getHolder()} is always {@code null}.
 */
public interface TaskLock extends LockResource {

    /** The name the task was given with {@link TaskOptions#named}; the lock's holder shows as {@code task:<name>}. */
    String getTaskName();

    /**
     * Completes when the lock has ended: with {@code null} once it is released (by {@link #close()}, because the task
     * said it is no longer active, or by the manager's shutdown), or with the reason it was lost. Each call returns a
     * new stage: cancelling one changes nothing else.
     */
    CompletionStage<LockLossReason> whenEnded();

    /** Whether an abort of this lock was asked for, on any node, since it was taken. */
    boolean isAbortRequested();

    /**
     * Completes (with {@code null}) when an abort of this lock is asked for, on any node or by the manager's shutdown,
     * after the task's listener was told: how work without a thread stops on an abort, as a thread's holder does on
     * its interrupt (cancel the work, then release). Never completes if no abort comes; each call returns a new stage.
     */
    CompletionStage<Void> whenAbortRequested();

    /**
     * Releases the lock as {@link #close()} does, on one of the manager's task threads, so that a caller on an event
     * loop never waits for the store. The stage completes once the release is done (or queued for retry after a store
     * failure, as {@link #close()} does); it never completes exceptionally.
     */
    CompletionStage<Void> releaseAsync();
}
