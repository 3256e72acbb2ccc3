package io.github.lockmanager.store.redis;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.spi.LockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Data kept in the lock's own hash, on the machine's Redis: guarded reads and writes, release with the last write. */
class RedisLockDataTest {
    private static RedisLockStore store;
    private static RedisLockData data;

    private final List<LockManager> managers = new ArrayList<>();
    private final String client = "data-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void createStore() {
        store = RedisServer.store("lockmanager-data:");
        data = new RedisLockData(store);
    }

    @AfterEach
    void closeManagers() {
        managers.forEach(LockManager::close);
    }

    private LockManager node(String node, LockStore lockStore, Duration lease) throws LockManagerException {
        LockManager manager = LockManagerBuilder.newBuilder().store(lockStore).clientId(client).nodeId(node)
                .lease(lease).abortPollInterval(lease.dividedBy(4)).shutdownTimeout(Duration.ofSeconds(2)).build();
        managers.add(manager);
        return manager;
    }

    private static long valueOf(Map<String, String> data, String field) {
        String value = data.get(field);
        return value == null ? 0 : Long.parseLong(value);
    }

    @Test
    void theLastWriteAndTheReleaseApplyTogether() throws Exception {
        LockManager a = node("a", store, Duration.ofSeconds(30));
        LockManager b = node("b", store, Duration.ofSeconds(30));
        LockResource held = a.lock("order");
        assertThat(data.read(held)).isEmpty();
        data.change(held, Map.of("state", "NEW", "note", "x"), List.of());
        assertThat(data.read(held)).containsOnlyKeys("note", "state");
        data.releaseWithChanges(held, Map.of("state", "PAID"), List.of("note"));
        assertThat(held.isClosed()).isTrue();
        assertThat(a.getLocks()).isEmpty();
        try (LockResource next = b.lock("order")) {
            assertThat(next.getFencingToken()).isGreaterThan(held.getFencingToken());
            assertThat(data.read(next)).containsExactly(Map.entry("state", "PAID"));
        }
    }

    @Test
    void aStaleOwnersWritesChangeNothing() throws Exception {
        // a renews every 20 s and polls every 15 s: it cannot learn of the force-release before its writes
        LockManager a = node("a", store, Duration.ofSeconds(60));
        LockManager b = node("b", store, Duration.ofSeconds(30));
        LockResource stale = a.lock("order");
        data.change(stale, Map.of("v", "1"), List.of());
        assertThat(b.forceRelease("order", LockLevel.DC, "test")).isEqualTo(1);
        try (LockResource current = b.lock("order")) {
            data.change(current, Map.of("v", "2"), List.of());

            assertThatThrownBy(() -> data.change(stale, Map.of("v", "98"), List.of()))
                    .isInstanceOf(LockLostException.class).hasMessageContaining("order");
            assertThatThrownBy(() -> data.read(stale)).isInstanceOf(LockLostException.class);
            assertThatThrownBy(() -> data.releaseWithChanges(stale, Map.of("v", "99"), List.of()))
                    .isInstanceOf(LockLostException.class);

            assertThat(valueOf(data.read(current), "v")).isEqualTo(2);
            assertThat(current.isLost()).isFalse();
        }
    }

    @Test
    void aReentrantHoldWritesItsChangesAndKeepsTheLock() throws Exception {
        LockManager a = node("a", store, Duration.ofSeconds(30));
        try (LockResource outer = a.lock("nested")) {
            LockResource inner = a.lock("nested");
            data.releaseWithChanges(inner, Map.of("step", "1"), List.of());
            assertThat(outer.isLost()).isFalse();
            assertThat(valueOf(data.read(outer), "step")).isEqualTo(1);
            data.change(outer, Map.of(), List.of());
        }
    }

    @Test
    void aCounterIncrementedByThreadsOnTwoNodesLosesNoUpdate() throws Exception {
        int threadsPerNode = 3;
        int incrementsPerThread = 20;
        List<LockManager> nodes = List.of(node("a", RedisServer.store("lockmanager-data:"), Duration.ofSeconds(30)),
                node("b", RedisServer.store("lockmanager-data:"), Duration.ofSeconds(30)));
        ExecutorService pool = Executors.newFixedThreadPool(2 * threadsPerNode);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (LockManager node : nodes) {
                for (int t = 0; t < threadsPerNode; t++) {
                    workers.add(pool.submit(() -> {
                        for (int done = 0; done < incrementsPerThread; ) {
                            try (LockResource held = node.lock("counter")) {
                                long next = valueOf(data.read(held), "n") + 1;
                                if (done % 2 == 0) {
                                    data.change(held, Map.of("n", Long.toString(next)), List.of());
                                } else {
                                    data.releaseWithChanges(held, Map.of("n", Long.toString(next)), List.of());
                                }
                                done++;
                            } catch (AlreadyLockedException e) {
                                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> worker : workers) {
                worker.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        try (LockResource held = nodes.get(0).lock("counter")) {
            assertThat(valueOf(data.read(held), "n")).isEqualTo(2L * threadsPerNode * incrementsPerThread);
        }
    }

    @Test
    void badUseIsRefusedNamingWhatIsWrong() throws Exception {
        assertThatThrownBy(() -> new RedisLockData(null)).hasMessageContaining("store");
        LockManager a = node("a", store, Duration.ofSeconds(30));
        try (LockResource held = a.lock("bad")) {
            assertThatThrownBy(() -> data.change(held, Map.of("", "1"), List.of()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("field");
            assertThatThrownBy(() -> data.change(held, Map.of("nul\u0000", "1"), List.of()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("NUL");
            assertThat(data.read(held)).as("nothing written by a refused change").isEmpty();
        }
        try (LockResource shared = a.lock(LockSpec.shared("report"))) {
            assertThatThrownBy(() -> data.read(shared)).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("SHARED");
        }
    }
}
