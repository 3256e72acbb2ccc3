package io.github.lockmanager.testing;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockData;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.testing.support.InstrumentedStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What every {@link LockData} promises, on its real store: the last write and the release apply together, a stale
 * holder's reads and writes are refused with nothing written, a re-entrant hold writes and keeps the lock, threads of
 * two nodes incrementing a counter under the lock lose no update, and holds in other modes are refused. A store's
 * subclass names its data and how a text becomes one of its values; its own tests keep what only it does (its field
 * rules, how long its data lives).
 *
 * @param <V> the store's value type
 */
public abstract class LockDataContract<V> extends ContractNodes {

    /** The data under locks of {@link #store()}. */
    protected abstract LockData<V> data();

    /** {@code text} as one of the store's values. */
    protected abstract V value(String text);

    /** A value the store read back, as the text it was written from. */
    protected abstract String text(V value);

    private Map<String, V> values(String... namesAndTexts) {
        Map<String, V> values = new java.util.LinkedHashMap<>();
        for (int i = 0; i < namesAndTexts.length; i += 2) {
            values.put(namesAndTexts[i], value(namesAndTexts[i + 1]));
        }
        return values;
    }

    private long number(LockResource held, String name) throws Exception {
        V value = data().read(held).get(name);
        return value == null ? 0 : Long.parseLong(text(value));
    }

    @Test
    void theLastWriteAndTheReleaseApplyTogether() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        LockResource held = a.lock("order");
        assertThat(data().read(held)).isEmpty();
        data().change(held, values("state", "NEW", "note", "x"), List.of());
        assertThat(data().read(held)).containsOnlyKeys("note", "state");

        data().releaseWithChanges(held, values("state", "PAID"), List.of("note"));

        assertThat(held.isClosed()).isTrue();
        assertThat(a.getLocks()).isEmpty();
        try (LockResource next = b.lock("order")) {
            assertThat(next.getFencingToken()).isGreaterThan(held.getFencingToken());
            Map<String, V> read = data().read(next);
            assertThat(read).containsOnlyKeys("state");
            assertThat(text(read.get("state"))).isEqualTo("PAID");
        }
    }

    @Test
    void aStaleHoldersReadsAndWritesAreRefusedAndChangeNothing() throws Exception {
        // a renews every 20 s and polls every 15 s: it cannot learn of the force-release before its writes
        LockManager a = start(nodeBuilder("a", new InstrumentedStore(store())).lease(Duration.ofSeconds(60))
                .abortPollInterval(Duration.ofSeconds(15)));
        LockManager b = node("b");
        LockResource stale = a.lock("order");
        data().change(stale, values("v", "1"), List.of());
        assertThat(b.forceRelease("order", LockLevel.DC, "test")).isEqualTo(1);
        try (LockResource current = b.lock("order")) {
            data().change(current, values("v", "2"), List.of());

            assertThatThrownBy(() -> data().change(stale, values("v", "98"), List.of()))
                    .isInstanceOf(LockLostException.class).hasMessageContaining("order");
            assertThatThrownBy(() -> data().read(stale)).isInstanceOf(LockLostException.class);
            assertThatThrownBy(() -> data().releaseWithChanges(stale, values("v", "99"), List.of()))
                    .isInstanceOf(LockLostException.class);

            assertThat(number(current, "v")).isEqualTo(2);
            assertThat(current.isLost()).isFalse();
        }
    }

    @Test
    void aReentrantHoldWritesItsChangesAndKeepsTheLock() throws Exception {
        LockManager a = node("a");
        try (LockResource outer = a.lock("nested")) {
            LockResource inner = a.lock("nested");
            data().releaseWithChanges(inner, values("step", "1"), List.of());
            assertThat(inner.isClosed()).isTrue();
            assertThat(outer.isLost()).isFalse();
            assertThat(number(outer, "step")).isEqualTo(1);
            data().change(outer, Map.of(), List.of());
        }
    }

    @Test
    void aCounterIncrementedByThreadsOnTwoNodesLosesNoUpdate() throws Exception {
        int threadsPerNode = 3;
        int incrementsPerThread = 20;
        List<LockManager> nodes = List.of(node("a"), node("b"));
        ExecutorService pool = Executors.newFixedThreadPool(2 * threadsPerNode);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (LockManager node : nodes) {
                for (int t = 0; t < threadsPerNode; t++) {
                    workers.add(pool.submit(() -> {
                        for (int done = 0; done < incrementsPerThread; ) {
                            try (LockResource held = node.lock("counter")) {
                                Map<String, V> next = values("n", Long.toString(number(held, "n") + 1));
                                if (done % 2 == 0) {
                                    data().change(held, next, List.of());
                                } else {
                                    data().releaseWithChanges(held, next, List.of());
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
            assertThat(number(held, "n")).isEqualTo(2L * threadsPerNode * incrementsPerThread);
        }
    }

    @Test
    void aHoldInAnotherModeIsRefusedNamingIt() throws Exception {
        LockManager a = node("a");
        try (LockResource shared = a.lock(LockSpec.shared("report"))) {
            assertThatThrownBy(() -> data().read(shared)).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("SHARED");
            assertThatThrownBy(() -> data().change(shared, values("v", "1"), List.of()))
                    .isInstanceOf(UnsupportedOperationException.class);
        }
    }
}
