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

        holdUntil(b, "busy", new CountDownLatch(1));
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
}
