package io.github.lockmanager.reactor;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.Lock;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.TaskLock;
import io.github.lockmanager.TaskLockListener;
import io.github.lockmanager.TaskOptions;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.store.memory.InMemoryLockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class ReactiveLocksTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private LockManager manager;
    private ReactiveLocks locks;

    @BeforeEach
    void start() throws Exception {
        manager = LockManagerBuilder.newBuilder().store(new InMemoryLockStore()).nodeId("rx").build();
        locks = ReactiveLocks.of(manager);
    }

    @AfterEach
    void close() {
        manager.close();
    }

    @Test
    void theLockIsHeldUntilTheWorkEndsNotUntilItIsBuilt() throws Exception {
        Sinks.One<String> result = Sinks.one();
        Mono<String> work = locks.withLock(LockSpec.of("job").at(LockLevel.DC), WAIT, TaskOptions.named("report"),
                lock -> result.asMono().map(r -> r + " #" + lock.getFencingToken()));
        assertThat(manager.isLocked("job")).as("nothing is taken before subscription").isFalse();
        AtomicReference<String> got = new AtomicReference<>();
        work.subscribe(got::set);
        await().atMost(WAIT).until(() -> manager.isLocked("job"));

        result.tryEmitValue("done");

        await().atMost(WAIT).until(() -> got.get() != null && !manager.isLocked("job"));
        assertThat(got.get()).startsWith("done #");
    }

    @Test
    void failureAndCancellationReleaseTheLock() throws Exception {
        assertThatThrownBy(() -> locks.withLock(LockSpec.of("job").at(LockLevel.DC), WAIT, TaskOptions.named("t"),
                lock -> Mono.error(new IllegalStateException("boom"))).block()).hasMessageContaining("boom");
        await().atMost(WAIT).until(() -> !manager.isLocked("job"));

        Disposable running = locks.withLock(LockSpec.of("job").at(LockLevel.DC), WAIT, TaskOptions.named("t"), lock -> Mono.never())
                .subscribe();
        await().atMost(WAIT).until(() -> manager.isLocked("job"));
        running.dispose();
        await().atMost(WAIT).until(() -> !manager.isLocked("job"));
    }

    @Test
    void aLostLockCancelsTheWorkAndFailsThePipeline() throws Exception {
        AtomicBoolean cancelled = new AtomicBoolean();
        Flux<Long> ticks = locks.withLockMany(LockSpec.of("job").at(LockLevel.DC), WAIT, TaskOptions.named("stream"),
                lock -> Flux.interval(Duration.ofMillis(20)).doOnCancel(() -> cancelled.set(true)));
        AtomicReference<Throwable> failure = new AtomicReference<>();
        ticks.subscribe(t -> { }, failure::set);
        await().atMost(WAIT).until(() -> manager.isLocked("job"));

        assertThat(manager.forceRelease("job", LockLevel.DC, "test")).isEqualTo(1);

        await().atMost(WAIT).until(() -> failure.get() != null);
        assertThat(failure.get()).isInstanceOf(LockLostException.class).hasMessageContaining("lost");
        assertThat(cancelled).isTrue();
    }

    @Test
    void aWaitingSubscriberGetsTheKeyWhenFreedAndOneThatCancelsLeavesNothingHeld() throws Exception {
        LockResource held = manager.lockForTask(LockSpec.of("job").at(LockLevel.DC), TaskOptions.named("holder"));
        assertThatThrownBy(() -> locks.lock(LockSpec.of("job").at(LockLevel.DC), Duration.ofMillis(100), TaskOptions.named("late"))
                .block()).hasCauseInstanceOf(AlreadyLockedException.class);

        Disposable gaveUp = locks.lock(LockSpec.of("job").at(LockLevel.DC), WAIT, TaskOptions.named("gives-up")).subscribe();
        Mono<List<Long>> waiting = locks.withLock(LockSpec.of("job").at(LockLevel.DC), WAIT, TaskOptions.named("waiter"),
                lock -> Mono.just(List.of(lock.getFencingToken())));
        AtomicReference<List<Long>> got = new AtomicReference<>();
        waiting.subscribe(got::set);
        gaveUp.dispose();
        held.close();

        await().atMost(WAIT).until(() -> got.get() != null);
        assertThat(got.get().get(0)).isGreaterThan(held.getFencingToken());
        await().atMost(WAIT).until(() -> !manager.isLocked("job"));
        TaskLock again = manager.lockForTask(LockSpec.of("job").at(LockLevel.DC), TaskOptions.named("after"));
        again.close();
    }

    @Test
    void anAbortFromAnyNodeCancelsTheWorkReleasesTheLockAndTellsTheTasksListener() throws Exception {
        AtomicBoolean cancelled = new AtomicBoolean();
        AtomicBoolean told = new AtomicBoolean();
        TaskOptions options = TaskOptions.named("stream").listener(new TaskLockListener() {
            @Override
            public void abortRequested(Lock lock) {
                told.set(true);
            }
        });
        Flux<Long> ticks = locks.withLockMany(LockSpec.of("job").at(LockLevel.DC), WAIT, options,
                lock -> Flux.interval(Duration.ofMillis(20)).doOnCancel(() -> cancelled.set(true)));
        AtomicReference<Throwable> failure = new AtomicReference<>();
        ticks.subscribe(t -> { }, failure::set);
        await().atMost(WAIT).until(() -> manager.isLocked("job"));

        manager.abort("job");

        await().atMost(WAIT).until(() -> failure.get() != null);
        assertThat(failure.get()).isInstanceOf(CancellationException.class).hasMessageContaining("abort");
        assertThat(cancelled).as("the work was cancelled").isTrue();
        assertThat(told).as("the task's own listener is still told").isTrue();
        await().atMost(WAIT).until(() -> !manager.isLocked("job"));

        // a Mono's work too; and a pipeline that was not aborted is not failed by an abort of another run
        Disposable quiet = locks.withLock(LockSpec.of("calm").at(LockLevel.DC), WAIT, TaskOptions.named("calm"), lock -> Mono.never())
                .subscribe();
        AtomicReference<Throwable> monoFailure = new AtomicReference<>();
        locks.withLock(LockSpec.of("job").at(LockLevel.DC), WAIT, TaskOptions.named("once"), lock -> Mono.never())
                .subscribe(v -> { }, monoFailure::set);
        await().atMost(WAIT).until(() -> manager.isLocked("job") && manager.isLocked("calm"));
        manager.abort("job");
        await().atMost(WAIT).until(() -> monoFailure.get() != null && !manager.isLocked("job"));
        assertThat(monoFailure.get()).isInstanceOf(CancellationException.class);
        assertThat(manager.isLocked("calm")).isTrue();
        quiet.dispose();
    }

    @Test
    void closingTheManagerStopsReactiveWorkAtOnceInsteadOfWaitingOutTheShutdownTimeout() throws Exception {
        LockManager closing = LockManagerBuilder.newBuilder().store(new InMemoryLockStore()).nodeId("closing")
                .shutdownTimeout(Duration.ofSeconds(60)).build();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        ReactiveLocks.of(closing).withLock(LockSpec.of("job").at(LockLevel.DC), WAIT, TaskOptions.named("long"), lock -> Mono.never())
                .subscribe(v -> { }, failure::set);
        await().atMost(WAIT).until(() -> closing.isLocked("job"));
        long start = System.nanoTime();
        closing.close();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("close() did not wait out its 60 s")
                .isLessThan(Duration.ofSeconds(30));
        await().atMost(WAIT).until(() -> failure.get() != null);
        assertThat(failure.get()).isInstanceOf(CancellationException.class);
    }
}
