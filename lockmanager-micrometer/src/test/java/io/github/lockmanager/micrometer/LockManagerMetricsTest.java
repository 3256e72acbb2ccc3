package io.github.lockmanager.micrometer;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.store.jdbc.DatabaseAccess;
import io.github.lockmanager.store.jdbc.JdbcLockStore;
import io.github.lockmanager.testing.support.InstrumentedStore;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The meters of a lock manager on the local PostgreSQL ({@code -Dlockmanager.postgres.url} to use another). */
class LockManagerMetricsTest {
    private static JdbcLockStore store;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final LockManagerMetrics metrics = new LockManagerMetrics(Tags.of("service", "test"));
    private final InstrumentedStore cuttable = new InstrumentedStore(store);
    private final String client = "metrics-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<LockManager> managers = new ArrayList<>();
    /** Holds locks that get lost or aborted: the interrupt lands on a pool thread, which survives it. */
    private final ExecutorService holderThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "metrics-holder"));

    @BeforeAll
    static void database() throws Exception {
        store = JdbcLockStore.builder(DatabaseAccess.postgres()).tableName("lockmanager_metrics").build();
        store.initialize();
    }

    @AfterEach
    void closeManagers() {
        holderThread.shutdownNow();
        managers.forEach(LockManager::close);
    }

    private LockManager node(LockManagerBuilder builder, String node) throws Exception {
        LockManager manager = builder.clientId(client).nodeId(node).lease(Duration.ofMillis(1500))
                .abortPollInterval(Duration.ofMillis(100)).shutdownTimeout(Duration.ofSeconds(1)).build();
        managers.add(manager);
        return manager;
    }

    private LockManager measured() throws Exception {
        LockManager manager = node(LockManagerBuilder.newBuilder().store(cuttable).eventListener(metrics)
                .heldTooLongThreshold(Duration.ofMillis(300)).waitPollInterval(Duration.ofMillis(20)), "measured");
        metrics.bindTo(registry);
        return manager;
    }

    private double count(String name, String... tags) {
        var counter = registry.find(name).tags(tags).counter();
        return counter == null ? 0 : counter.count();
    }

    private double held() {
        return registry.get("lockmanager.locks.held").tag("service", "test").gauge().value();
    }

    @Test
    void acquisitionsHoldsAndRenewalsAreMeasured() throws Exception {
        LockManager measured = measured();
        LockManager other = node(LockManagerBuilder.newBuilder().store(store), "other");
        LockResource held = measured.lock("job");
        measured.lock("job").close();
        assertThat(count("lockmanager.acquisitions", "result", "acquired", "level", "dc", "mode", "exclusive",
                "service", "test")).as("re-entry is no acquisition").isEqualTo(1);
        assertThat(held()).isEqualTo(1);

        try (LockResource ignored = other.lock("busy")) {
            assertThatThrownBy(() -> measured.lock("busy")).isInstanceOf(AlreadyLockedException.class);
        }
        assertThat(count("lockmanager.acquisitions", "result", "refused", "mode", "exclusive")).isEqualTo(1);

        await().atMost(Duration.ofSeconds(30)).until(() -> registry.find("lockmanager.renewal.batch").timer() != null
                && registry.find("lockmanager.renewal.batch").timer().count() >= 1);
        await().atMost(Duration.ofSeconds(30)).until(() -> count("lockmanager.held.too.long") == 1);
        held.close();
        assertThat(registry.get("lockmanager.hold").tags("level", "dc", "mode", "exclusive").timer().count())
                .isEqualTo(1);
        assertThat(held()).isZero();
    }

    @Test
    void lossesAbortsAndRenewalFailuresAreCounted() throws Exception {
        LockManager measured = measured();
        LockManager admin = node(LockManagerBuilder.newBuilder().store(store), "admin");
        LockResource aborted = holderThread.submit(() -> measured.lock("aborted")).get(30, TimeUnit.SECONDS);
        admin.abort("aborted", LockLevel.DC);
        await().atMost(Duration.ofSeconds(30)).until(() -> count("lockmanager.aborts") == 1);
        aborted.close();

        LockResource forced = holderThread.submit(() -> measured.lock("forced")).get(30, TimeUnit.SECONDS);
        admin.forceRelease("forced", LockLevel.DC, "metrics test");
        await().atMost(Duration.ofSeconds(30)).until(() -> count("lockmanager.losses", "reason", "not_owned") == 1);
        assertThat(forced.isLost()).isTrue();
        assertThat(held()).isZero();

        LockResource cut = holderThread.submit(() -> measured.lock("cut")).get(30, TimeUnit.SECONDS);
        cuttable.setUnreachable(true);
        await().atMost(Duration.ofSeconds(30)).until(() -> count("lockmanager.renewal.failures") >= 1
                && count("lockmanager.losses", "reason", "renewal_unconfirmed") == 1);
        assertThat(cut.isLost()).isTrue();
        cuttable.setUnreachable(false);
    }

    @Test
    void aGrantThatCameTooLateToUseIsNeitherAnAcquisitionNorARelease() throws Exception {
        LockManager measured = measured();
        cuttable.delayAcquireAnswers(Duration.ofMillis(1400));
        assertThatThrownBy(() -> measured.lock("slow")).hasMessageContaining("too close to its lease");
        cuttable.delayAcquireAnswers(Duration.ZERO);
        assertThat(count("lockmanager.acquisitions", "result", "acquired")).isZero();
        assertThat(registry.find("lockmanager.hold").timer()).isNull();
        assertThat(held()).isZero();
        measured.lock("slow").close();
        assertThat(held()).isZero();
        assertThat(registry.get("lockmanager.hold").timer().count()).isEqualTo(1);
    }

    @Test
    void waitsForALockAreTimedByHowTheyEnded() throws Exception {
        LockManager measured = measured();
        LockManager other = node(LockManagerBuilder.newBuilder().store(store), "other");
        LockResource busy = other.lock("queue");
        assertThatThrownBy(() -> measured.waitForLock(LockSpec.of("queue"), Duration.ofMillis(100)))
                .isInstanceOf(AlreadyLockedException.class);
        Timer timedOut = registry.get("lockmanager.waits").tags("result", "timed_out", "level", "dc", "mode",
                "exclusive", "service", "test").timer();
        assertThat(timedOut.count()).isEqualTo(1);
        assertThat(timedOut.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(100);
        assertThat(count("lockmanager.acquisitions", "result", "refused", "mode", "exclusive"))
                .as("a wait of several tries is one refusal, not one per try").isEqualTo(1);
        assertThatThrownBy(() -> measured.lock("queue")).isInstanceOf(AlreadyLockedException.class);
        assertThat(count("lockmanager.acquisitions", "result", "refused", "mode", "exclusive"))
                .as("a refusal after the wait counts again").isEqualTo(2);

        Future<LockResource> waiting = holderThread.submit(() -> measured.waitForLock(LockSpec.shared("queue").at(LockLevel.DC),
                Duration.ofSeconds(30)));
        await().atMost(Duration.ofSeconds(30)).until(() -> count("lockmanager.acquisitions", "result", "refused",
                "mode", "shared") >= 1);
        assertThat(registry.get("lockmanager.waiters").gauge().value()).as("the wait under way").isEqualTo(1);
        busy.close();
        waiting.get(30, TimeUnit.SECONDS).close();
        assertThat(registry.get("lockmanager.waiters").gauge().value()).as("no wait left").isZero();
        assertThat(registry.get("lockmanager.waits").tags("result", "acquired", "mode", "shared").timer().count())
                .isEqualTo(1);
        assertThatThrownBy(() -> measured.waitForLock(LockSpec.of(""), Duration.ofMillis(100)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(registry.find("lockmanager.waits").timers()).as("a refused argument is no wait").hasSize(2);
    }

    @Test
    void eventsBeforeBindingAreDroppedAndTheBindingIsChecked() {
        LockManagerMetrics unbound = new LockManagerMetrics();
        unbound.renewalFailed(3, new IllegalStateException("test"));
        assertThatThrownBy(() -> unbound.bindTo(null)).hasMessageContaining("registry");
        assertThatThrownBy(() -> new LockManagerMetrics(null)).hasMessageContaining("tags");
        unbound.bindTo(registry);
        assertThat(registry.find("lockmanager.renewal.failures").counter()).isNull();
        assertThat(registry.get("lockmanager.locks.held").gauge().value()).isZero();
    }
}
