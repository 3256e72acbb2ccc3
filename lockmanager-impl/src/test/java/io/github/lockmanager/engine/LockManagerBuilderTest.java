package io.github.lockmanager.engine;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.store.memory.InMemoryLockStore;
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
        assertThatThrownBy(() -> builder.lease(Duration.ZERO)).hasMessage("lease must be positive, was PT0S");
        assertThatThrownBy(() -> builder.lease(Duration.ofMillis(99))).hasMessageContaining("at least 100ms");
        assertThatThrownBy(() -> builder.renewalInterval(Duration.ofSeconds(-1))).hasMessageContaining("renewalInterval must be positive");
        assertThatThrownBy(() -> builder.abortPollInterval(null)).hasMessage("abortPollInterval must not be null");
        assertThatThrownBy(() -> builder.renewalBatchSize(0)).hasMessageContaining("renewalBatchSize");
        assertThatThrownBy(() -> builder.shutdownTimeout(Duration.ofMillis(-1))).hasMessageContaining("shutdownTimeout");
        assertThatThrownBy(() -> builder.defaultLevel(null)).hasMessage("defaultLevel must not be null");
        assertThatThrownBy(() -> builder.timeSource(null)).hasMessage("timeSource must not be null");
        assertThatThrownBy(() -> builder.lossListener(null)).hasMessage("lossListener must not be null");
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
