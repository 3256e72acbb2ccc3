package io.github.lockmanager.engine;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockEventListener;
import io.github.lockmanager.TaskLock;
import io.github.lockmanager.TaskOptions;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.memory.InMemoryLockStore;
import io.github.lockmanager.store.support.ForwardingLockStore;
import io.github.lockmanager.store.support.RetryPolicy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.net.SocketTimeoutException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The manager's blocking waits ({@code waitForLock} and its siblings). */
class WaitsTest {
    /** Longer than any test may take: a waiter that sleeps out one poll interval fails its test. */
    private static final Duration LONG_INTERVAL = Duration.ofSeconds(60);
    private static final Duration FOREVER = ChronoUnit.FOREVER.getDuration();

    private final InMemoryLockStore store = new InMemoryLockStore();
    private final List<LockManager> managers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();

    @AfterEach
    void close() throws InterruptedException {
        for (Thread t : threads) {
            t.interrupt();
            t.join(10_000);
        }
        managers.forEach(LockManager::close);
    }

    private LockManager node(String id, LockStore on) throws LockManagerException {
        return node(id, on, LONG_INTERVAL);
    }

    private LockManager node(String id, LockStore on, Duration pollInterval) throws LockManagerException {
        LockManager manager = LockManagerBuilder.newBuilder().store(on).nodeId(id).waitPollInterval(pollInterval)
                .build();
        managers.add(manager);
        return manager;
    }

    private LockManager node(String id) throws LockManagerException {
        return node(id, store);
    }

    /** Takes {@code key} on a thread of {@code node} and holds it until {@code letGo} opens. */
    private void holdUntil(LockManager node, String key, CountDownLatch letGo) throws InterruptedException {
        holdUntil(() -> node.lock(key), letGo);
    }

    @FunctionalInterface
    private interface Taking {
        LockResource take() throws Exception;
    }

    private void holdUntil(Taking taking, CountDownLatch letGo) throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            try (LockResource ignored = taking.take()) {
                held.countDown();
                letGo.await();
            } catch (Exception e) {
                held.countDown();
            }
        }, "holder");
        threads.add(t);
        t.start();
        assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
    }

    /** Starts a thread named {@code name} that puts what {@code taking} returns into {@code got}; returns once it waits. */
    private Thread waitingThread(String name, Taking taking, AtomicReference<LockResource> got) {
        Thread waiter = new Thread(() -> {
            try {
                got.set(taking.take());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, name);
        threads.add(waiter);
        waiter.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> waiter.getState() == Thread.State.TIMED_WAITING);
        return waiter;
    }

    @Test
    void aFreeLockIsTakenAtOnce() throws Exception {
        LockManager a = node("a");
        try (LockResource lock = a.waitForLock(LockSpec.of("job"), Duration.ZERO)) {
            assertThat(lock.isNewLock()).isTrue();
        }
    }

    @Test
    void aWaitForALockWithALeaseOfItsOwnTakesItWithThatLease() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b", store, Duration.ofMillis(20));
        CountDownLatch letGo = new CountDownLatch(1);
        holdUntil(a, "job", letGo);
        holdUntil(a, "report", letGo);
        Duration lease = Duration.ofSeconds(7);
        AtomicReference<LockResource> exclusive = new AtomicReference<>();
        AtomicReference<LockResource> shared = new AtomicReference<>();
        waitingThread("writer", () -> b.waitForLock(LockSpec.of("job").at(LockLevel.DC).lease(lease), Duration.ofSeconds(30)),
                exclusive);
        waitingThread("reader", () -> b.waitForLock(LockSpec.shared("report").at(LockLevel.DC).lease(lease), FOREVER),
                shared);

        letGo.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> exclusive.get() != null && shared.get() != null);
        for (String key : List.of("job", "report")) {
            assertThat(b.inspect(key, LockLevel.DC)).singleElement().satisfies(lock -> assertThat(
                    Duration.between(lock.getLockTime(), lock.getExpirationTime())).isEqualTo(lease));
        }
    }

    @Test
    void aWaiterOnTheSameNodeWakesWhenTheHolderReleases() throws Exception {
        LockManager a = node("a");
        CountDownLatch letGo = new CountDownLatch(1);
        holdUntil(a, "job", letGo);
        AtomicReference<LockResource> got = new AtomicReference<>();
        Thread waiter = waitingThread("waiter", () -> a.waitForLock(LockSpec.of("job"), FOREVER), got);

        letGo.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> got.get() != null);
        assertThat(got.get().getHolder()).isSameAs(waiter);
    }

    @Test
    void aReaderWaitsForTheWriterOfItsNodeAndWakesWhenItReleases() throws Exception {
        LockManager a = node("a");
        CountDownLatch letGo = new CountDownLatch(1);
        holdUntil(a, "report", letGo);
        AtomicReference<LockResource> got = new AtomicReference<>();
        Thread waiter = waitingThread("reader", () -> a.waitForLock(LockSpec.shared("report").at(LockLevel.DC), LONG_INTERVAL), got);

        letGo.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> got.get() != null);
        assertThat(got.get().getLock().getMode()).isEqualTo(LockMode.SHARED);
        assertThat(a.waitForLock(LockSpec.shared("report").at(LockLevel.DC), Duration.ZERO).getLock().getMode())
                .as("beside another reader at once").isEqualTo(LockMode.SHARED);
    }

    /** A writer kept out by readers of its own node sleeps until they leave, rather than asking the store again and again. */
    @Test
    void aWriterWaitingForReadersOfItsNodeSleepsUntilTheyLeave() throws Exception {
        AtomicInteger acquires = new AtomicInteger();
        LockManager a = node("a", new ForwardingLockStore(store) {
            @Override
            public AcquireResult acquire(LockRequest request, Duration lease) throws LockManagerException {
                acquires.incrementAndGet();
                return super.acquire(request, lease);
            }
        });
        CountDownLatch letGo = new CountDownLatch(1);
        holdUntil(() -> a.lock(LockSpec.shared("report")), letGo);
        AtomicReference<LockResource> got = new AtomicReference<>();
        Thread waiter = waitingThread("writer", () -> a.waitForLock(LockSpec.of("report"), FOREVER), got);
        int asked = acquires.get();
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
                .until(() -> acquires.get() == asked && got.get() == null);

        letGo.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> got.get() != null);
        assertThat(got.get().getLock().getMode()).isEqualTo(LockMode.EXCLUSIVE);
    }

    @Test
    void aWaiterOnAnotherNodePollsUntilTheHolderReleases() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b", store, Duration.ofMillis(50));
        CountDownLatch letGo = new CountDownLatch(1);
        holdUntil(a, "job", letGo);
        Thread releaser = new Thread(() -> {
            try {
                TimeUnit.MILLISECONDS.sleep(300);
            } catch (InterruptedException e) {
                return;
            }
            letGo.countDown();
        }, "releaser");
        threads.add(releaser);
        releaser.start();

        try (LockResource lock = b.waitForLock(LockSpec.of("job"), Duration.ofSeconds(30))) {
            assertThat(letGo.getCount()).as("taken only after the holder let go").isZero();
            assertThat(lock.isNewLock()).isTrue();
        }
    }

    @Test
    void theDeadlineIsNeverOvershotByAWaitInterval() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        holdUntil(a, "job", new CountDownLatch(1));

        long start = System.nanoTime();
        assertThatThrownBy(() -> b.waitForLock(LockSpec.of("job"), Duration.ofMillis(200)))
                .isInstanceOf(AlreadyLockedException.class).hasMessageStartingWith("Waited ").hasMessageContaining("job")
                .hasCauseInstanceOf(AlreadyLockedException.class);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertThat(millis).as("waited for the 200 ms deadline, not the 60 s interval").isBetween(200L, 30_000L);
    }

    @Test
    void aZeroWaitMakesOneTry() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        holdUntil(a, "job", new CountDownLatch(1));
        assertThatThrownBy(() -> b.waitForLock(LockSpec.of("job"), Duration.ZERO))
                .isInstanceOf(AlreadyLockedException.class).hasMessageStartingWith("Lock 'job' is already held");
    }

    @Test
    void aWaitIsInterruptible() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        holdUntil(a, "job", new CountDownLatch(1));
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                b.waitForLock(LockSpec.of("job"), FOREVER);
            } catch (Throwable t) {
                outcome.set(t);
            }
        }, "waiter");
        threads.add(waiter);
        waiter.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> waiter.getState() == Thread.State.TIMED_WAITING);

        waiter.interrupt();

        waiter.join(10_000);
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
    }

    @Test
    void aStoreFailureEndsTheWaitAtOnce() throws Exception {
        LockStore failing = new ForwardingLockStore(store) {
            @Override
            protected void before(String operation) throws LockManagerException {
                if (operation.equals("acquire")) {
                    throw new LockManagerException(ErrorCode.CONNECTION_ERROR, "test: store down");
                }
            }
        };
        LockManager a = node("a", failing);
        assertThatThrownBy(() -> a.waitForLock(LockSpec.of("job"), LONG_INTERVAL))
                .isInstanceOfSatisfying(LockManagerException.class,
                        e -> assertThat(e.getErrorCode()).isEqualTo(ErrorCode.CONNECTION_ERROR));
    }

    /**
     * A store built on the kit's retries with a 10 s operation timeout, whose server stops answering while
     * {@code partitioned}: each attempt waits out the time it is given, then times out, as a socket read would.
     */
    private LockStore partitionable(AtomicBoolean partitioned) {
        RetryPolicy retries = new RetryPolicy(3, Duration.ofMillis(20), Duration.ofMillis(500));
        return new ForwardingLockStore(store) {
            @Override
            public AcquireResult acquire(LockRequest request, Duration lease) throws LockManagerException {
                return retries.call("acquire", Duration.ofSeconds(10), e -> RetryPolicy.Failure.TRANSIENT,
                        remainingMillis -> {
                            if (partitioned.get()) {
                                TimeUnit.MILLISECONDS.sleep(remainingMillis);
                                throw new SocketTimeoutException("test: no answer in " + remainingMillis + " ms");
                            }
                            return super.acquire(request, lease);
                        });
            }
        };
    }

    @Test
    void aStoreCallHeldUpByAPartitionEndsAtTheWaitsDeadlineNotAtTheOperationTimeout() throws Exception {
        AtomicBoolean partitioned = new AtomicBoolean(true);
        LockManager b = node("b", partitionable(partitioned), Duration.ofMillis(50));

        long start = System.nanoTime();
        assertThatThrownBy(() -> b.waitForLock(LockSpec.of("job"), Duration.ofMillis(300)))
                .isInstanceOf(LockManagerException.class).hasMessageContaining("the time its caller had left");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("a 300 ms wait against a 10 s operation timeout")
                .isBetween(Duration.ofMillis(300), Duration.ofSeconds(5));

        start = System.nanoTime();
        CompletableFuture<TaskLock> task = b.lockForTaskAsync(LockSpec.of("job"), Duration.ofMillis(300), TaskOptions.named("t"))
                .toCompletableFuture();
        assertThatThrownBy(() -> task.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(LockManagerException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("a task's wait").isLessThan(Duration.ofSeconds(5));

        // a wait of one try, or of no end, leaves the operation timeout alone: the try is not cut short
        partitioned.set(false);
        assertThat(b.waitForLock(LockSpec.of("free"), Duration.ZERO).isNewLock()).isTrue();
    }

    @Test
    void aWaitRefusedBeforeThePartitionEndsAsOneThatRanOutWithTheStoreFailureKept() throws Exception {
        AtomicBoolean partitioned = new AtomicBoolean();
        LockManager a = node("a");
        LockManager b = node("b", partitionable(partitioned), Duration.ofMillis(50));
        holdUntil(a, "job", new CountDownLatch(1));
        Thread partition = new Thread(() -> {
            try {
                TimeUnit.MILLISECONDS.sleep(150);
            } catch (InterruptedException e) {
                return;
            }
            partitioned.set(true);
        }, "partition");
        threads.add(partition);
        partition.start();

        long start = System.nanoTime();
        assertThatThrownBy(() -> b.waitForLock(LockSpec.of("job"), Duration.ofMillis(600)))
                .isInstanceOf(AlreadyLockedException.class).hasMessageStartingWith("Waited ")
                .satisfies(e -> assertThat(e.getSuppressed()).singleElement()
                        .isInstanceOf(LockManagerException.class));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void aTaskWaitRefusedBeforeThePartitionEndsNamingTheLastHolder() throws Exception {
        AtomicBoolean partitioned = new AtomicBoolean();
        LockManager a = node("a");
        AtomicInteger answered = new AtomicInteger();
        LockManager b = node("b", new ForwardingLockStore(partitionable(partitioned)) {
            @Override
            public AcquireResult acquire(LockRequest request, Duration lease) throws LockManagerException {
                AcquireResult result = super.acquire(request, lease);
                answered.incrementAndGet();
                return result;
            }
        }, Duration.ofMillis(50));
        holdUntil(a, "job", new CountDownLatch(1));
        CompletableFuture<TaskLock> wait = b.lockForTaskAsync(LockSpec.of("job").at(LockLevel.DC), Duration.ofSeconds(2),
                TaskOptions.named("waiter")).toCompletableFuture();
        // a second try comes after the first refusal was taken in: the waiter keeps only who held the key
        await().atMost(Duration.ofSeconds(5)).until(() -> answered.get() >= 2);
        partitioned.set(true);

        assertThatThrownBy(() -> wait.get(10, TimeUnit.SECONDS)).cause()
                .isInstanceOf(AlreadyLockedException.class).hasMessageStartingWith("Waited ")
                .satisfies(e -> assertThat(((AlreadyLockedException) e).getHolderNodeId()).isEqualTo("a"))
                .satisfies(e -> assertThat(e.getSuppressed()).singleElement()
                        .isInstanceOf(LockManagerException.class));
    }

    /** One wait: a node's waiters, threads and tasks alike, queue per key and are served in the order they came. */
    @Test
    void aNodesWaitersThreadsAndTasksAlikeAreServedInTheOrderTheyCame() throws Exception {
        // a poll interval beyond the test's patience: a waiter served by its timer instead of its turn fails it
        LockEngine a = (LockEngine) node("a");
        CountDownLatch letGo = new CountDownLatch(1);
        holdUntil(a, "k", letGo);
        List<String> served = new java.util.concurrent.CopyOnWriteArrayList<>();

        spawnWaiter(a, "w1", served);
        await().atMost(Duration.ofSeconds(30)).until(() -> a.waitQueue().size() == 1);
        CompletableFuture<TaskLock> task = a.lockForTaskAsync(LockSpec.of("k"), FOREVER, TaskOptions.named("t2"))
                .toCompletableFuture();
        task.thenAccept(lock -> {
            served.add("t2");
            lock.close();
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> a.waitQueue().size() == 2);
        spawnWaiter(a, "w3", served);
        await().atMost(Duration.ofSeconds(30)).until(() -> a.waitQueue().size() == 3);

        letGo.countDown();

        await().atMost(Duration.ofSeconds(30)).until(() -> served.size() == 3);
        assertThat(served).containsExactly("w1", "t2", "w3");
        assertThat(a.waitQueue().size()).isZero();
    }

    private void spawnWaiter(LockManager node, String name, List<String> served) {
        Thread waiter = new Thread(() -> {
            try (LockResource held = node.waitForLock(LockSpec.of("k"), FOREVER)) {
                served.add(name);
            } catch (Exception e) {
                served.add(name + " failed: " + e);
            }
        }, name);
        threads.add(waiter);
        waiter.start();
    }

    @Test
    void badArgumentsAreNamed() throws Exception {
        LockManager a = node("a");
        assertThatThrownBy(() -> a.waitForLock(LockSpec.of("job"), null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxWait must not be null");
        assertThatThrownBy(() -> a.waitForLock(LockSpec.of("job"), Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxWait must be zero or more");
        assertThatThrownBy(() -> a.waitForLock(LockSpec.of(""), LONG_INTERVAL)).hasMessageContaining("empty");
        assertThatThrownBy(() -> a.waitForLock(LockSpec.path("a/b", LockMode.INTENT_SHARED).at(LockLevel.DC), LONG_INTERVAL))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a path is locked SHARED or EXCLUSIVE");
        assertThatThrownBy(() -> LockManagerBuilder.newBuilder().waitPollInterval(Duration.ofNanos(10)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waitPollInterval must be at least 1 ms");
        assertThat(a.getLocks()).isEmpty();
    }


    /** Counts the refusals and waits a manager reports, as its meters count them. */
    private static final class Counts implements LockEventListener {
        final AtomicInteger refused = new AtomicInteger();
        final AtomicInteger waited = new AtomicInteger();

        @Override
        public void refused(String key, LockLevel level, LockMode mode) {
            refused.incrementAndGet();
        }

        @Override
        public void waited(String key, LockLevel level, LockMode mode, Duration waited, WaitResult result) {
            this.waited.incrementAndGet();
        }
    }

    @Test
    void oneWaitIsOneRefusalAndOneWaitWhateverItsRetriesThreadOrTask() throws Exception {
        Counts counts = new Counts();
        // a 5 ms poll: a wait of 600 ms tries the store dozens of times
        LockManager b = LockManagerBuilder.newBuilder().store(store).nodeId("b").waitPollInterval(Duration.ofMillis(5))
                .eventListener(counts).build();
        managers.add(b);
        LockManager a = node("a");
        holdUntil(a, "job", new CountDownLatch(1));

        assertThatThrownBy(() -> b.waitForLock(LockSpec.of("job"), Duration.ofMillis(600))).isInstanceOf(AlreadyLockedException.class);
        assertThat(counts.refused).as("a thread's wait").hasValue(1);
        assertThat(counts.waited).hasValue(1);

        CompletableFuture<TaskLock> task = b.lockForTaskAsync(LockSpec.of("job"), Duration.ofMillis(600), TaskOptions.named("t"))
                .toCompletableFuture();
        assertThatThrownBy(() -> task.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(AlreadyLockedException.class);
        await().untilAsserted(() -> assertThat(counts.waited).hasValue(2));
        assertThat(counts.refused).as("a task's wait, retried on the manager's task threads").hasValue(2);

        // a refusal that is not a wait's retry still counts: another key right after, on the task threads too
        assertThatThrownBy(() -> b.lock("job")).isInstanceOf(AlreadyLockedException.class);
        assertThat(counts.refused).hasValue(3);
        CompletableFuture<TaskLock> once = b.lockForTaskAsync(LockSpec.of("job"), Duration.ZERO, TaskOptions.named("t2"))
                .toCompletableFuture();
        assertThatThrownBy(() -> once.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(AlreadyLockedException.class);
        await().untilAsserted(() -> assertThat(counts.refused).hasValue(4));
    }

    /** Ends of a wait as its listener hears them. */
    private static final class Results implements LockEventListener {
        final List<LockEventListener.WaitResult> results = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void waited(String key, LockLevel level, LockMode mode, Duration waited, WaitResult result) {
            results.add(result);
        }
    }

    @Test
    void aTaskWaitEndsWhenItsFutureIsCompletedByTheCallerHoweverAndLeavesNothingBehind() throws Exception {
        Results results = new Results();
        LockManager b = LockManagerBuilder.newBuilder().store(store).nodeId("b").waitPollInterval(LONG_INTERVAL)
                .eventListener(results).build();
        managers.add(b);
        LockEngine engine = (LockEngine) b;
        TaskLock holder = b.lockForTask(LockSpec.of("job"), TaskOptions.named("holder"));
        java.util.function.Supplier<CompletableFuture<TaskLock>> waiter = () -> b.lockForTaskAsync(LockSpec.of("job"),
                Duration.ofMinutes(10), TaskOptions.named("w")).toCompletableFuture();

        CompletableFuture<TaskLock> cancelled = waiter.get();
        CompletableFuture<TaskLock> timedOut = waiter.get();
        CompletableFuture<TaskLock> failedByCaller = waiter.get();
        CompletableFuture<TaskLock> failedLater = waiter.get();
        CompletableFuture<TaskLock> answeredByCaller = waiter.get();
        await().until(() -> engine.taskWaits() == 5);
        timedOut.orTimeout(50, TimeUnit.MILLISECONDS);
        assertThat(cancelled.cancel(false)).isTrue();
        assertThat(failedByCaller.completeExceptionally(new IllegalStateException("given up"))).isTrue();
        failedLater.completeAsync(() -> {
            throw new IllegalStateException("given up later");
        }, Runnable::run);
        assertThat(answeredByCaller.complete(null)).isTrue();
        await().atMost(Duration.ofSeconds(30)).until(() -> engine.taskWaits() == 0);
        assertThat(timedOut).isCompletedExceptionally();
        // cancelled or answered by the caller: interrupted (no acquisition); the timeout, the caller's failure and the
        // failed supplier: failed (a wait leaves the count before its end is told to listeners: awaited)
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(results.results)
                .containsExactlyInAnyOrder(LockEventListener.WaitResult.INTERRUPTED,
                        LockEventListener.WaitResult.INTERRUPTED, LockEventListener.WaitResult.FAILED,
                        LockEventListener.WaitResult.FAILED, LockEventListener.WaitResult.FAILED));

        // a forced result would bypass the wait's end: refused, the wait goes on; stages of it are plain futures
        CompletableFuture<TaskLock> forced = waiter.get();
        assertThatThrownBy(() -> forced.obtrudeValue(null)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> forced.obtrudeException(new IllegalStateException()))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(forced.thenApply(lock -> lock).getClass()).isEqualTo(CompletableFuture.class);
        assertThat(forced).isNotDone();
        holder.close();
        TaskLock taken = forced.get(30, TimeUnit.SECONDS);
        assertThat(taken.isLost()).isFalse();
        await().until(() -> results.results.size() == 6);
        assertThat(results.results.get(5)).isEqualTo(LockEventListener.WaitResult.ACQUIRED);
        taken.close();
        await().until(() -> engine.taskWaits() == 0);
        assertThat(b.isLocked("job")).isFalse();
    }
}
