package io.github.lockmanager.engine;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.store.memory.InMemoryLockStore;
import io.github.lockmanager.testing.support.ManualTimeSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LockManagerBuilderTest {
    private final LockManagerBuilder builder = LockManagerBuilder.newBuilder();

    @Test
    void everySettingNamesItselfWhenRefused() {
        assertThatThrownBy(() -> builder.store(null)).hasMessage("store must not be null");
        assertThatThrownBy(() -> builder.clientId("")).hasMessage("clientId must not be null or empty");
        assertThatThrownBy(() -> builder.clientId("a#b")).hasMessageContaining("clientId must not contain '#'");
        assertThatThrownBy(() -> builder.farmId("x".repeat(65))).hasMessage("farmId must be at most 64 chars, was 65");
        assertThatThrownBy(() -> builder.nodeId(null)).hasMessage("nodeId must not be null or empty");
        assertThatThrownBy(() -> builder.lease(Duration.ZERO)).hasMessage("lease must be at least 100ms, was PT0S");
        assertThatThrownBy(() -> builder.lease(Duration.ofMillis(99))).hasMessageContaining("at least 100ms");
        assertThatThrownBy(() -> builder.renewalInterval(Duration.ofSeconds(-1))).hasMessageContaining("renewalInterval must be positive");
        assertThatThrownBy(() -> builder.abortPollInterval(null)).hasMessage("abortPollInterval must not be null");
        assertThatThrownBy(() -> builder.renewalBatchSize(0)).hasMessageContaining("renewalBatchSize");
        assertThatThrownBy(() -> builder.maxLocalHandOffs(-1))
                .hasMessage("maxLocalHandOffs must be between 0 and 1000, was -1");
        assertThatThrownBy(() -> builder.maxLocalHandOffs(1001))
                .hasMessage("maxLocalHandOffs must be between 0 and 1000, was 1001");
        assertThatThrownBy(() -> builder.shutdownTimeout(Duration.ofMillis(-1))).hasMessageContaining("shutdownTimeout");
        assertThatThrownBy(() -> builder.defaultLevel(null)).hasMessage("defaultLevel must not be null");
        assertThatThrownBy(() -> builder.timeSource(null)).hasMessage("timeSource must not be null");
        assertThatThrownBy(() -> builder.lossListener(null)).hasMessage("lossListener must not be null");
    }

    @Test
    void idsThatNoStoreKeepsAsGivenAreRefusedNamingTheSetting() {
        // PostgreSQL rejects NUL; drivers store an unpaired surrogate as '?', so "app\uD800" and "app?" would share locks
        assertThatThrownBy(() -> builder.clientId("app\uD800")).hasMessage(
                "clientId has an unpaired surrogate char at index 3: it is not valid Unicode text");
        assertThatThrownBy(() -> builder.farmId("f\u0000")).hasMessage(
                "farmId must not hold a control character (U+0000 at index 1)");
        assertThatThrownBy(() -> builder.nodeId("\uDC00node")).hasMessageStartingWith("nodeId has an unpaired surrogate");
        // one rule for every id (task names, client, farm and node ids, store prefixes): no control character either
        assertThatThrownBy(() -> builder.nodeId("node\n2")).hasMessageStartingWith("nodeId must not hold a control");
        assertThatThrownBy(() -> builder.clientId("app\u0085")).hasMessageStartingWith("clientId must not hold a control");
        assertThatThrownBy(() -> builder.farmId(" ")).hasMessageStartingWith("farmId must not be blank");
        assertThat(builder.clientId("app\uD83D\uDE00")).as("a paired surrogate is valid text").isSameAs(builder);
    }

    @Test
    void settingsThatWouldOverflowLaterAreRefusedAtOnce() {
        assertThatThrownBy(() -> builder.shutdownTimeout(Duration.ofSeconds(Long.MAX_VALUE)))
                .hasMessageStartingWith("shutdownTimeout must be between 0 and PT1H");
        assertThatThrownBy(() -> builder.lease(Duration.ofDays(365 * 1000))).hasMessageStartingWith("lease must be at most PT24H");
        assertThatThrownBy(() -> builder.abortPollInterval(Duration.ofDays(2))).hasMessageStartingWith("abortPollInterval must be at most");
        assertThatThrownBy(() -> builder.renewalInterval(Duration.ofDays(2))).hasMessageStartingWith("renewalInterval must be at most");
        assertThatThrownBy(() -> builder.purgeInterval(Duration.ofMillis(-1))).hasMessageStartingWith("purgeInterval must be positive");
        assertThat(builder.purgeInterval(Duration.ZERO)).as("zero turns purging off").isSameAs(builder);
    }

    @Test
    void aManualClockIsRefusedOverAStoreThatEndsLeasesByAnotherClock() throws Exception {
        ManualTimeSource time = new ManualTimeSource();
        builder.timeSource(time).store(new InMemoryLockStore());
        assertThatThrownBy(builder::build).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is not the clock store");
        builder.store(new InMemoryLockStore(time));
        try (LockManager manager = builder.build(); LockResource lock = manager.lock("k")) {
            assertThat(lock.isNewLock()).isTrue();
        }
    }

    @Test
    void buildRefusesAMissingStoreAndARenewalIntervalNotWellInsideTheLease() {
        assertThatThrownBy(builder::build).isInstanceOf(IllegalStateException.class).hasMessageContaining("store");
        builder.store(new InMemoryLockStore()).lease(Duration.ofSeconds(30)).renewalInterval(Duration.ofSeconds(11));
        assertThatThrownBy(builder::build).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("renewalInterval (PT11S) must be at most a third of the lease (PT30S)");
    }

    @Test
    void defaultsGiveAUniqueNodeIdAndAThirdOfTheLeaseForRenewal() throws Exception {
        builder.store(new InMemoryLockStore()).lease(Duration.ofSeconds(3));
        try (LockManager one = builder.build(); LockManager two = builder.build()) {
            assertThat(one.getNodeId()).isNotEqualTo(two.getNodeId()).doesNotContain("#");
            assertThat(one.getDefaultLevel()).isEqualTo(io.github.lockmanager.LockLevel.DC);
        }
    }
}
