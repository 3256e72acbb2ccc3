package io.github.lockmanager.reactor;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.TaskLock;
import io.github.lockmanager.TaskOptions;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * Task locks for Reactor pipelines. {@link #withLock} takes a lock when the pipeline is subscribed, waiting without a
 * thread, and releases it when the work completes, fails or is cancelled. If the lock is lost meanwhile, the work is
 * cancelled and the pipeline fails with {@link LockLostException}; if an abort is asked for (from any node, or by the
 * manager's shutdown), the work is cancelled, the lock released and the pipeline fails with a
 * {@link CancellationException}: the abort that interrupts a thread's holder stops a pipeline's.
 *
 * <pre>{@code
 * ReactiveLocks locks = ReactiveLocks.of(lockManager);
 * Mono<Report> report = locks.withLock(LockSpec.of("report-" + day), Duration.ofSeconds(5),
 *         TaskOptions.named("report"), lock -> build(day, lock.getFencingToken()));
 * }</pre>
 *
 * <p>Thread rules: thread-safe and stateless; nothing is taken until a pipeline is subscribed, and each subscription
 * takes a lock of its own. Releases run on the manager's task threads, never on the subscriber's.
 */
public final class ReactiveLocks {
    private final LockManager manager;

    private ReactiveLocks(LockManager manager) {
        this.manager = manager;
    }

    /** Reactive locks of {@code manager}. */
    public static ReactiveLocks of(LockManager manager) {
        return new ReactiveLocks(Objects.requireNonNull(manager, "lock manager"));
    }

    /**
     * A {@code Mono} that takes what {@code spec} says for a task at each subscription, waiting up to {@code maxWait}
     * ({@link LockManager#lockForTaskAsync}); the subscriber owns the lock it emits and must close it. Cancelling the
     * subscription while it waits ends the wait, and a lock granted at that moment is released.
     * It fails with {@code AlreadyLockedException} if {@code maxWait} passes first.
     */
    public Mono<TaskLock> lock(LockSpec spec, Duration maxWait, TaskOptions task) {
        return Mono.defer(() -> {
            CompletableFuture<TaskLock> waiting = manager.lockForTaskAsync(spec, maxWait, task).toCompletableFuture();
            return Mono.fromFuture(waiting, true).doOnCancel(() -> waiting.cancel(false));
        });
    }

    /**
     * Runs {@code work} under what {@code spec} says, held from subscription until the {@code Mono} it returns ends; see the class
     * documentation for release and loss.
     */
    public <T> Mono<T> withLock(LockSpec spec, Duration maxWait, TaskOptions task,
                                Function<? super TaskLock, ? extends Mono<T>> work) {
        Objects.requireNonNull(work, "work");
        return Flux.<T>defer(() -> run(spec, maxWait, task, work)).singleOrEmpty();
    }

    /** {@link #withLock} for work that emits many values: the lock is held until the {@code Flux} ends. */
    public <T> Flux<T> withLockMany(LockSpec spec, Duration maxWait, TaskOptions task,
                                    Function<? super TaskLock, ? extends Publisher<T>> work) {
        Objects.requireNonNull(work, "work");
        return Flux.defer(() -> run(spec, maxWait, task, work));
    }

    /** One subscription's lock and work. */
    private <T> Flux<T> run(LockSpec spec, Duration maxWait, TaskOptions task,
                            Function<? super TaskLock, ? extends Publisher<T>> work) {
        return Flux.usingWhen(lock(spec, maxWait, task), held -> guarded(held, Flux.from(work.apply(held))),
                ReactiveLocks::release, (held, error) -> release(held), ReactiveLocks::release);
    }

    /**
     * {@code work}, cancelled and failed with {@link LockLostException} once {@code held} is lost, or with a
     * {@link CancellationException} once an abort of it is asked for.
     */
    private static <T> Flux<T> guarded(TaskLock held, Flux<T> work) {
        // a lock released normally completes its stage with null, which must not end the work
        Mono<Object> lost = Mono.fromCompletionStage(held.whenEnded()).switchIfEmpty(Mono.never()).cast(Object.class);
        Mono<Object> aborted = Mono.fromCompletionStage(held.whenAbortRequested().thenApply(asked -> Boolean.TRUE));
        // only work that was cut short fails: work that ended by itself as the abort or loss came keeps its end
        AtomicBoolean stopped = new AtomicBoolean();
        Mono<Object> stop = Mono.firstWithSignal(lost, aborted).doOnNext(signal -> stopped.set(true));
        return work.takeUntilOther(stop).concatWith(Mono.defer(() -> !stopped.get() ? Mono.empty()
                : Mono.error(held.isLost()
                ? new LockLostException("lock " + held.getLock().getKey() + " of task '" + held.getTaskName()
                + "' was lost while its work ran: the work was cancelled")
                : new CancellationException("lock " + held.getLock().getKey() + " of task '" + held.getTaskName()
                + "': an abort was asked for while its work ran, so the work was cancelled and the lock released"))));
    }

    private static Mono<Void> release(TaskLock held) {
        return Mono.fromCompletionStage(held.releaseAsync());
    }
}
