package io.github.lockmanager.utils;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.store.memory.InMemoryLockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The run- and call-under-lock helpers; the waits themselves are the manager's ({@code WaitsTest}). */
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

    private LockManager node(String id) throws LockManagerException {
        LockManager manager = LockManagerBuilder.newBuilder().store(store).nodeId(id).build();
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
}
