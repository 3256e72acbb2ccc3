package io.github.lockmanager.utils;

import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.memory.InMemoryLockStore;
import io.github.lockmanager.store.support.ForwardingLockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The {@link java.util.concurrent.locks.Lock} view of a cluster-wide lock, on two nodes of the in-memory store. */
class ClusterLockTest {
    private static final Duration POLL = Duration.ofMillis(20);

    private final InMemoryLockStore store = new InMemoryLockStore();
    private final List<LockManager> managers = new ArrayList<>();

    @AfterEach
    void close() {
        managers.forEach(LockManager::close);
    }

    private LockManager node(String id, LockStore on) throws LockManagerException {
        LockManager manager = LockManagerBuilder.newBuilder().store(on).nodeId(id)
                .abortPollInterval(Duration.ofMillis(50)).waitPollInterval(POLL).build();
        managers.add(manager);
        return manager;
    }

    private ClusterLock lock(LockManager manager, String key) {
        return ClusterLock.of(manager, key, LockLevel.DC);
    }

    /** Runs {@code body} on a thread of its own and answers what it returned or threw. */
    private static <T> CompletableFuture<T> onThread(String name, java.util.concurrent.Callable<T> body) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                result.complete(body.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        }, name);
        thread.start();
        return result;
    }

    @Test
    void reentryCountsHoldsAndOnlyTheHolderUnlocks() throws Exception {
        LockManager a = node("a", store);
        ClusterLock lock = lock(a, "job");
        lock.lock();
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(onThread("other", () -> {
            assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class)
                    .hasMessageContaining("thread 'other' does not hold the lock 'job' (DC)");
            return lock.isHeldByCurrentThread();
        }).get(10, TimeUnit.SECONDS)).isFalse();

        lock.unlock();
        assertThat(a.isLocked("job")).isTrue();
        lock.unlock();
        assertThat(a.isLocked("job")).isFalse();
        assertThat(lock.isHeld()).isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void aPermitLockLetsItsNumberOfThreadsInAndTheNextWaitsForOne() throws Exception {
        LockManager a = node("a", store);
        LockManager b = node("b", store);
        ClusterLock onA = ClusterLock.permit(a, "partner", 2, LockLevel.DC);
        ClusterLock onB = ClusterLock.permit(b, "partner", 2, LockLevel.DC);
        onA.lock();
        assertThat(onThread("second", () -> onB.tryLock()).get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(onThread("third", () -> onB.tryLock()).get(10, TimeUnit.SECONDS)).isFalse();
        CompletableFuture<Boolean> waiting = onThread("waiting", () -> {
            boolean got = onA.tryLock(30, TimeUnit.SECONDS);
            onA.unlock();
            return got;
        });
        assertThat(a.getLocks()).hasSize(2).allSatisfy(l -> assertThat(l.getPermits()).isEqualTo(2));
        onA.unlock();
        assertThat(waiting.get(30, TimeUnit.SECONDS)).as("woken by the release on its node").isTrue();
        assertThatThrownBy(() -> ClusterLock.permit(a, "partner", 0, LockLevel.DC))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("permits");
    }

    @Test
    void aThreadThatDiesHoldingTheLockNoLongerCountsAsHoldingIt() throws Exception {
        LockManager a = node("a", store);
        ClusterLock lock = lock(a, "job");
        Thread dead = new Thread(lock::lock, "dies-holding");
        dead.start();
        dead.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(dead.isAlive()).isFalse();

        assertThat(lock.isHeld()).as("forgotten with its thread, so that a registry may let the lock go").isFalse();
        assertThat(lock.tryLock(30, TimeUnit.SECONDS)).as("the manager released the dead thread's lock").isTrue();
        assertThat(lock.isHeld()).isTrue();
        lock.unlock();
        assertThat(lock.isHeld()).isFalse();
    }

    @Test
    void tryLockRefusesWhileAnotherNodeHoldsAndWaitsWhenGivenTime() throws Exception {
        LockManager a = node("a", store);
        LockManager b = node("b", store);
        ClusterLock mine = lock(a, "report");
        LockResource theirs = b.lock("report");
        assertThat(mine.tryLock()).isFalse();
        assertThat(mine.tryLock(60, TimeUnit.MILLISECONDS)).isFalse();

        CompletableFuture<Boolean> waiter = onThread("waiter", () -> {
            boolean got = mine.tryLock(30, TimeUnit.SECONDS);
            mine.unlock();
            return got;
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> a.isLocked("report"));
        theirs.close();
        assertThat(waiter.get(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void lockWaitsThroughAnInterruptAndReturnsWithTheFlagSet() throws Exception {
        LockManager a = node("a", store);
        LockManager b = node("b", store);
        ClusterLock mine = lock(a, "batch");
        LockResource theirs = b.lock("batch");
        AtomicBoolean started = new AtomicBoolean();
        CompletableFuture<Boolean> waiter = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            started.set(true);
            mine.lock();
            waiter.complete(Thread.currentThread().isInterrupted());
            mine.unlock();
        }, "uninterruptible");
        thread.start();
        await().atMost(Duration.ofSeconds(10)).untilTrue(started);
        thread.interrupt();
        assertThat(waiter).isNotDone();
        theirs.close();
        assertThat(waiter.get(30, TimeUnit.SECONDS)).as("interrupt flag kept").isTrue();
    }

    @Test
    void lockInterruptiblyStopsWaitingWhenInterrupted() throws Exception {
        LockManager b = node("b", store);
        ClusterLock mine = lock(node("a", store), "queue");
        try (LockResource ignored = b.lock("queue")) {
            CompletableFuture<Object> waiter = new CompletableFuture<>();
            Thread thread = new Thread(() -> {
                try {
                    mine.lockInterruptibly();
                    waiter.complete("locked");
                } catch (InterruptedException e) {
                    waiter.complete(e);
                }
            }, "interruptible");
            thread.start();
            thread.interrupt();
            assertThat(waiter.get(30, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
            assertThat(mine.isHeld()).isFalse();
        }
    }

    @Test
    void unlockTellsTheHolderThatItsLockWasLost() throws Exception {
        LockManager a = node("a", store);
        LockManager admin = node("admin", store);
        ClusterLock lock = lock(a, "migration");
        CountDownLatch locked = new CountDownLatch(1);
        CompletableFuture<Object> unlocked = onThread("holder", () -> {
            lock.lock();
            locked.countDown();
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException lost) {
                // the manager interrupts a holder whose lock is lost
            }
            try {
                lock.unlock();
                return "no exception";
            } catch (UncheckedLockException e) {
                return e;
            }
        });
        assertThat(locked.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(admin.forceRelease("migration", LockLevel.DC, "test")).isEqualTo(1);
        assertThat(unlocked.get(30, TimeUnit.SECONDS)).isInstanceOfSatisfying(UncheckedLockException.class, e -> {
            assertThat(e.getCause()).isInstanceOf(LockLostException.class);
            assertThat(e).hasMessageContaining("'migration' (DC) was lost while thread 'holder' held it");
        });
        assertThat(lock.isHeld()).isFalse();
    }

    @Test
    void storeFailuresAreUncheckedAndHoldNothing() throws Exception {
        AtomicBoolean down = new AtomicBoolean(true);
        LockStore failing = new ForwardingLockStore(store) {
            @Override
            protected void before(String operation) throws LockManagerException {
                if (down.get() && operation.equals("acquire")) {
                    throw new LockManagerException(ErrorCode.CONNECTION_ERROR, "test: store down");
                }
            }
        };
        ClusterLock lock = lock(node("a", failing), "down");
        assertThatThrownBy(lock::lock).isInstanceOf(UncheckedLockException.class)
                .hasCauseInstanceOf(LockManagerException.class).hasMessageContaining("store down");
        assertThatThrownBy(lock::tryLock).isInstanceOf(UncheckedLockException.class);
        assertThat(lock.isHeld()).isFalse();
        down.set(false);
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
    }

    @Test
    void badInputAndConditionsAreRefusedClearly() throws Exception {
        LockManager a = node("a", store);
        assertThatThrownBy(() -> ClusterLock.of(a, "")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lock key must not be empty");
        assertThatThrownBy(() -> ClusterLock.of(a, "k", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("level must not be null");
        assertThatThrownBy(() -> ClusterLock.of(a, "k").newCondition())
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("no conditions");
        assertThat(ClusterLock.of(a, "k").getLevel()).isEqualTo(a.getDefaultLevel());
    }
}
