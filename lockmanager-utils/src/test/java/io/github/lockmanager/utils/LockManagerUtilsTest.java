package io.github.lockmanager.utils;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockEventListener;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.store.memory.InMemoryLockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Hippo's waitForLock and the run- and call-under-lock helpers; the waits themselves are the manager's ({@code WaitsTest}). */
class LockManagerUtilsTest {
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

    private final AtomicInteger waits = new AtomicInteger();

    private LockManager node(String id) throws LockManagerException {
        LockManager manager = LockManagerBuilder.newBuilder().store(store).nodeId(id)
                .eventListener(new LockEventListener() {
                    @Override
                    public void waited(String key, LockLevel level, LockMode mode, Duration waited, WaitResult result) {
                        waits.incrementAndGet();
                    }
                }).build();
        managers.add(manager);
        return manager;
    }

    /** Takes {@code key} on a thread of {@code node} and holds it until the test ends. */
    private void hold(LockManager node, String key) throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            try (LockResource ignored = node.lock(key)) {
                held.countDown();
                new CountDownLatch(1).await();
            } catch (Exception e) {
                held.countDown();
            }
        }, "holder");
        threads.add(t);
        t.start();
        assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void tasksRunUnderTheLockAndReleaseIt() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        assertThat(LockManagerUtils.callWithLock(a, "job", () -> b.isLocked("job"))).isTrue();
        assertThat(LockManagerUtils.callWithLock(a, "job", Duration.ofSeconds(1), () -> b.isLocked("job"))).isTrue();
        LockManagerUtils.runWithLock(a, "job", () -> { });
        assertThat(b.isLocked("job")).isFalse();

        assertThatThrownBy(() -> LockManagerUtils.callWithLock(a, "job", () -> {
            throw new IllegalStateException("task failed");
        })).hasMessage("task failed");
        assertThat(b.isLocked("job")).as("released after a failing task").isFalse();

        hold(b, "busy");
        boolean[] ran = {false};
        assertThatThrownBy(() -> LockManagerUtils.runWithLock(a, "busy", () -> ran[0] = true))
                .isInstanceOf(AlreadyLockedException.class);
        assertThatThrownBy(() -> LockManagerUtils.runWithLock(a, "busy", Duration.ofMillis(100), () -> ran[0] = true))
                .isInstanceOf(AlreadyLockedException.class).hasMessageStartingWith("Waited ");
        assertThatThrownBy(() -> LockManagerUtils.runWithLock(null, "job", () -> { }))
                .hasMessageContaining("lockManager");
        assertThatThrownBy(() -> LockManagerUtils.runWithLock(a, "job", null)).hasMessageContaining("task");
        assertThat(ran[0]).isFalse();
    }

    @Test
    void hipposWaitForLockIsWokenByTheReleaseNotItsInterval() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        LockResource held = b.lock("job");
        CompletableFuture<LockResource> waiter = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                // an hour between tries: only the release can end this wait within the test's time
                waiter.complete(LockManagerUtils.waitForLock(a, "job", 3_600_000));
            } catch (Throwable e) {
                waiter.completeExceptionally(e);
            }
        }, "hippo-waiter");
        threads.add(t);
        t.start();
        await().atMost(Duration.ofSeconds(20)).until(() -> t.getState() == Thread.State.WAITING
                || t.getState() == Thread.State.TIMED_WAITING);
        assertThat(waiter).isNotDone();
        held.close();
        LockResource got = waiter.get(20, TimeUnit.SECONDS);
        assertThat(got.getFencingToken()).isGreaterThan(held.getFencingToken());
        assertThat(b.isLocked("job")).isTrue();
        assertThat(waits).as("one wait, one event").hasValue(1);
        got.close();
        assertThat(b.isLocked("job")).isFalse();

        // a thread that holds the key adds a hold at once, without a deadline or with one
        try (LockResource first = LockManagerUtils.waitForLock(a, "again", 50);
             LockResource second = LockManagerUtils.waitForLock(a, "again", 50, 0)) {
            assertThat(first.isNewLock()).isTrue();
            assertThat(second.isNewLock()).as("a hold added to the thread's lock").isFalse();
            assertThat(first.getFencingToken()).isEqualTo(second.getFencingToken());
        }
        assertThat(b.isLocked("again")).isFalse();
    }

    @Test
    void hipposWaitForLockWithATimeoutThrowsTimeoutExceptionAndHoldsNothing() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        hold(b, "busy");
        long start = System.nanoTime();
        assertThatThrownBy(() -> LockManagerUtils.waitForLock(a, "busy", 20, 300))
                .isInstanceOf(TimeoutException.class).hasMessageContaining("timed out after 300 ms")
                .hasMessageContaining("'busy'").hasCauseInstanceOf(AlreadyLockedException.class);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(300);
        assertThatThrownBy(() -> LockManagerUtils.waitForLock(a, "busy", 20, 0)).isInstanceOf(TimeoutException.class);
        assertThat(a.getLocks()).singleElement().satisfies(lock -> assertThat(lock.getOwnerNodeId()).isEqualTo("b"));

        assertThatThrownBy(() -> LockManagerUtils.waitForLock(a, "job", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("waitIntervalMillis");
        assertThatThrownBy(() -> LockManagerUtils.waitForLock(a, "job", 10, -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeoutMillis");
        assertThatThrownBy(() -> LockManagerUtils.waitForLock(null, "job", 10)).hasMessageContaining("lockManager");
        assertThatThrownBy(() -> LockManagerUtils.waitForLock(a, "", 10)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void hipposWaitForLockEndsOnInterruptHoldingNothing() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        hold(b, "busy");
        CompletableFuture<Object> waiter = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                waiter.complete(LockManagerUtils.waitForLock(a, "busy", 10));
            } catch (Throwable e) {
                waiter.completeExceptionally(e);
            }
        }, "interrupted-waiter");
        threads.add(t);
        t.start();
        t.interrupt();
        assertThatThrownBy(() -> waiter.get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(InterruptedException.class);
        assertThat(a.getLocks()).singleElement().satisfies(lock -> assertThat(lock.getOwnerNodeId()).isEqualTo("b"));
    }
}
