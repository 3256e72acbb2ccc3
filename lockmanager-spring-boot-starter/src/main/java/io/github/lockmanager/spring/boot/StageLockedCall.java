package io.github.lockmanager.spring.boot;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.TaskLock;
import io.github.lockmanager.spring.boot.ClusterLocked.OnBusy;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * A call of a {@link ClusterLocked} method that returns a {@code CompletionStage}: its lock belongs to a task, taken
 * without blocking the caller when it waits, and released when the returned stage completes, however it completes.
 * A busy lock fails the returned stage ({@code THROW}) or completes it with {@code null} ({@code SKIP}). An abort of
 * the lock (from any node, or the manager's shutdown) cancels the method's stage and fails the returned one with a
 * {@link CancellationException}; the lock is released as the cancelled stage completes. Cancelling a
 * {@code CompletableFuture} interrupts no thread: work that runs on must look at its future's {@code isCancelled()}.
 */
final class StageLockedCall {
    private StageLockedCall() {
    }

    static CompletableFuture<Object> invoke(LockedMethod locked, LockManager manager, String key,
                                            MethodInvocation invocation) {
        // proceeding after this call has returned needs a copy of the invocation, as Spring's own async advice does
        MethodInvocation later = locked.onBusy() == OnBusy.WAIT && invocation instanceof ProxyMethodInvocation proxy
                ? proxy.invocableClone() : invocation;
        CompletionStage<TaskLock> lock = locked.onBusy() == OnBusy.WAIT
                ? manager.lockForTaskAsync(locked.spec(manager, key), locked.maxWait(), locked.task())
                : tryNow(locked, manager, key);
        CompletableFuture<Object> result = new CompletableFuture<>();
        lock.whenComplete((held, failure) -> {
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                if (cause instanceof AlreadyLockedException && locked.onBusy() == OnBusy.SKIP) {
                    result.complete(null);
                } else {
                    result.completeExceptionally(cause);
                }
                return;
            }
            run(locked, held, later, result);
        });
        return result;
    }

    private static CompletionStage<TaskLock> tryNow(LockedMethod locked, LockManager manager, String key) {
        try {
            return CompletableFuture.completedFuture(manager.lockForTask(locked.spec(manager, key), locked.task()));
        } catch (LockException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static void run(LockedMethod locked, TaskLock held, MethodInvocation invocation,
                            CompletableFuture<Object> result) {
        CompletionStage<?> work;
        try {
            work = (CompletionStage<?>) invocation.proceed();
        } catch (Throwable t) {
            locked.release(held);
            result.completeExceptionally(t);
            return;
        }
        if (work == null) {
            locked.release(held);
            result.complete(null);
            return;
        }
        work.whenComplete((value, failure) -> {
            locked.release(held);
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            if (cause instanceof CancellationException && held.isAbortRequested()) {
                // cancelled by the abort: say so; work that ended by itself as the abort came keeps its outcome
                result.completeExceptionally(cancelled(held));
            } else if (failure != null) {
                result.completeExceptionally(failure);
            } else {
                result.complete(value);
            }
        });
        // an abort asked for before this line is acted on at once, one asked later when it comes
        held.whenAbortRequested().thenRun(() -> cancel(locked, held, work, result));
    }

    /** Stops the method's work: its stage is cancelled, which releases the lock as it completes. */
    private static void cancel(LockedMethod locked, TaskLock held, CompletionStage<?> work,
                               CompletableFuture<Object> result) {
        try {
            work.toCompletableFuture().cancel(true);
        } catch (UnsupportedOperationException cannotCancel) {
            // a stage that cannot be cancelled: its holder is stopped all the same, as an abort promises
            locked.release(held);
            result.completeExceptionally(cancelled(held));
        }
    }

    private static CancellationException cancelled(TaskLock held) {
        return new CancellationException("lock " + held.getLock().getKey() + " of '" + held.getTaskName()
                + "': an abort was asked for while the method's work ran, so its stage was cancelled and the lock "
                + "released");
    }
}
