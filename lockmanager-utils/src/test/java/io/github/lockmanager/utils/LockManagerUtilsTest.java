package io.github.lockmanager.utils;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.memory.InMemoryLockStore;
import io.github.lockmanager.store.support.ForwardingLockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class LockManagerUtilsTest {
    /** Longer than any test may take: a waiter that sleeps out one interval fails its test. */
    private static final long LONG_INTERVAL = 60_000;

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
        LockManager manager = LockManagerBuilder.newBuilder().store(on).nodeId(id).build();
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
        try (LockResource lock = LockManagerUtils.waitForLock(a, "job", LONG_INTERVAL, 0)) {
            assertThat(lock.isNewLock()).isTrue();
        }
    }

    @Test
    void aWaitForALockWithALeaseOfItsOwnTakesItWithThatLease() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        CountDownLatch letGo = new CountDownLatch(1);
        holdUntil(a, "job", letGo);
        holdUntil(a, "report", letGo);
        Duration lease = Duration.ofSeconds(7);
        AtomicReference<LockResource> exclusive = new AtomicReference<>();
        AtomicReference<LockResource> shared = new AtomicReference<>();
        waitingThread("writer", () -> LockManagerUtils.waitForLock(b, "job", LockLevel.DC, lease, 20, 30_000),
                exclusive);
        waitingThread("reader", () -> LockManagerUtils.waitForSharedLock(b, "report", LockLevel.DC, lease, 20),
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
        Thread waiter = waitingThread("waiter", () -> LockManagerUtils.waitForLock(a, "job", LONG_INTERVAL), got);

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
        Thread waiter = waitingThread("reader", () -> LockManagerUtils.waitForSharedLock(a, "report", LONG_INTERVAL, LONG_INTERVAL), got);

        letGo.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> got.get() != null);
        assertThat(got.get().getLock().getMode()).isEqualTo(LockMode.SHARED);
        assertThat(LockManagerUtils.waitForSharedLock(a, "report", LONG_INTERVAL, 0).getLock().getMode())
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
        holdUntil(() -> a.lockShared("report"), letGo);
        AtomicReference<LockResource> got = new AtomicReference<>();
        Thread waiter = waitingThread("writer", () -> LockManagerUtils.waitForLock(a, "report", LONG_INTERVAL), got);
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
        LockManager b = node("b");
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

        try (LockResource lock = LockManagerUtils.waitForLock(b, "job", 50, 30_000)) {
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
        assertThatThrownBy(() -> LockManagerUtils.waitForLock(b, "job", LONG_INTERVAL, 200))
                .isInstanceOf(TimeoutException.class).hasMessageContaining("job")
                .hasCauseInstanceOf(AlreadyLockedException.class);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertThat(millis).as("waited for the 200 ms deadline, not the 60 s interval").isBetween(200L, 30_000L);
    }

    @Test
    void aZeroTimeoutMakesOneTry() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        holdUntil(a, "job", new CountDownLatch(1));
        assertThatThrownBy(() -> LockManagerUtils.waitForLock(b, "job", LONG_INTERVAL, 0))
                .isInstanceOf(TimeoutException.class);
    }

    @Test
    void aWaitIsInterruptible() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        holdUntil(a, "job", new CountDownLatch(1));
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                LockManagerUtils.waitForLock(b, "job", LONG_INTERVAL);
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
        assertThatThrownBy(() -> LockManagerUtils.waitForLock(a, "job", LONG_INTERVAL, LONG_INTERVAL))
                .isInstanceOfSatisfying(LockManagerException.class,
                        e -> assertThat(e.getErrorCode()).isEqualTo(ErrorCode.CONNECTION_ERROR));
    }

    @Test
    void badArgumentsAreNamed() throws Exception {
        LockManager a = node("a");
        assertThatThrownBy(() -> LockManagerUtils.waitForLock(null, "job", 10)).hasMessageContaining("lockManager");
        assertThatThrownBy(() -> LockManagerUtils.waitForLock(a, "job", 0)).hasMessageContaining("waitIntervalMillis");
        assertThatThrownBy(() -> LockManagerUtils.waitForLock(a, "job", 10, -1)).hasMessageContaining("timeoutMillis");
        assertThatThrownBy(() -> LockManagerUtils.waitForLock(a, "", 10, 10)).hasMessageContaining("empty");
        assertThatThrownBy(() -> LockManagerUtils.runWithLock(a, "job", null)).hasMessageContaining("task");
        assertThat(a.getLocks()).isEmpty();
    }

    @Test
    void tasksRunUnderTheLockAndReleaseIt() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        assertThat(LockManagerUtils.callWithLock(a, "job", () -> b.isLocked("job"))).isTrue();
        assertThat(LockManagerUtils.callWithLock(a, "job", 10, 1_000, () -> b.isLocked("job"))).isTrue();
        LockManagerUtils.runWithLock(a, "job", () -> { });
        assertThat(b.isLocked("job")).isFalse();

        assertThatThrownBy(() -> LockManagerUtils.callWithLock(a, "job", () -> {
            throw new IllegalStateException("task failed");
        })).hasMessage("task failed");
        assertThat(b.isLocked("job")).as("released after a failing task").isFalse();

        holdUntil(b, "busy", new CountDownLatch(1));
        boolean[] ran = {false};
        assertThatThrownBy(() -> LockManagerUtils.runWithLock(a, "busy", () -> ran[0] = true))
                .isInstanceOf(AlreadyLockedException.class);
        assertThatThrownBy(() -> LockManagerUtils.runWithLock(a, "busy", 10, 100, () -> ran[0] = true))
                .isInstanceOf(TimeoutException.class);
        assertThat(ran[0]).isFalse();
    }
}
