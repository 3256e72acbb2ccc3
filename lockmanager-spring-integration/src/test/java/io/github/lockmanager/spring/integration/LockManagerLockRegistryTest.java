package io.github.lockmanager.spring.integration;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.store.jdbc.DatabaseAccess;
import io.github.lockmanager.store.jdbc.JdbcLockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The registry on two nodes of the local PostgreSQL ({@code -Dlockmanager.postgres.url} to use another). */
class LockManagerLockRegistryTest {
    private static JdbcLockStore store;

    private final String client = "registry-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<LockManager> managers = new ArrayList<>();
    private final List<LockRegistryLeaderInitiator> initiators = new ArrayList<>();

    @BeforeAll
    static void database() throws Exception {
        store = JdbcLockStore.builder(DatabaseAccess.postgres()).tableName("lockmanager_registry").build();
        store.initialize();
    }

    @AfterEach
    void close() {
        initiators.forEach(LockRegistryLeaderInitiator::stop);
        managers.forEach(LockManager::close);
    }

    private LockManagerLockRegistry registry(String node) throws Exception {
        LockManager manager = LockManagerBuilder.newBuilder().store(store).clientId(client).nodeId(node)
                .shutdownTimeout(Duration.ofSeconds(1)).build();
        managers.add(manager);
        return new LockManagerLockRegistry(manager);
    }

    private static <T> T onThread(java.util.concurrent.Callable<T> body) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        new Thread(() -> {
            try {
                result.complete(body.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        }, "other-thread").start();
        return result.get(30, TimeUnit.SECONDS);
    }

    @Test
    void locksExcludeAcrossNodesAndExecuteLockedRunsUnderTheLock() throws Exception {
        LockManagerLockRegistry a = registry("node-a");
        LockManagerLockRegistry b = registry("node-b");
        Lock lock = a.obtain("aggregate-17");
        assertThat(a.obtain("aggregate-17")).isSameAs(lock);

        lock.lock();
        try {
            assertThat(onThread(() -> b.obtain("aggregate-17").tryLock())).isFalse();
            assertThat(onThread(() -> b.obtain("aggregate-17").tryLock(50, TimeUnit.MILLISECONDS))).isFalse();
        } finally {
            lock.unlock();
        }
        String seen = b.executeLocked("aggregate-17", () -> {
            assertThat(onThread(() -> a.obtain("aggregate-17").tryLock())).isFalse();
            return "ran";
        });
        assertThat(seen).isEqualTo("ran");
        assertThat(onThread(() -> {
            Lock again = a.obtain("aggregate-17");
            boolean got = again.tryLock();
            again.unlock();
            return got;
        })).isTrue();
    }

    @Test
    void aLeaderInitiatorOnTheRegistryElectsOneNodeAndHandsOverWhenItStops() throws Exception {
        LockRegistryLeaderInitiator first = initiator(registry("node-a"), "node-a");
        LockRegistryLeaderInitiator second = initiator(registry("node-b"), "node-b");
        await().atMost(Duration.ofSeconds(30)).until(() -> first.getContext().isLeader()
                || second.getContext().isLeader());
        LockRegistryLeaderInitiator leader = first.getContext().isLeader() ? first : second;
        LockRegistryLeaderInitiator follower = leader == first ? second : first;
        assertThat(follower.getContext().isLeader()).isFalse();

        leader.stop();
        await().atMost(Duration.ofSeconds(30)).until(() -> follower.getContext().isLeader());
        assertThat(leader.getContext().isLeader()).isFalse();
    }

    private LockRegistryLeaderInitiator initiator(LockManagerLockRegistry registry, String node) {
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry,
                new DefaultCandidate(node, "nightly-leader"));
        initiator.setHeartBeatMillis(200);
        initiator.setBusyWaitMillis(50);
        initiators.add(initiator);
        initiator.start();
        return initiator;
    }

    @Test
    void unusedLocksExpireAndKeysAreChecked() throws Exception {
        LockManagerLockRegistry a = registry("node-a");
        Lock held = a.obtain("held");
        Lock idle = a.obtain("idle");
        held.lock();
        try {
            a.expireUnusedOlderThan(0);
            assertThat(a.obtain("held")).isSameAs(held);
            assertThat(a.obtain("idle")).isNotSameAs(idle);
        } finally {
            held.unlock();
        }
        assertThatThrownBy(() -> a.obtain(42)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lock keys of this registry are Strings, was a java.lang.Integer: 42");
        assertThatThrownBy(() -> a.obtain("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lock key must not be empty");
    }
}
