package io.github.lockmanager.store.support;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StoreBuilderTest {
    private static final RetryPolicy DEFAULT_RETRIES = new RetryPolicy(3, Duration.ofMillis(20), Duration.ofMillis(500));

    /** What a store's builder looks like: its own settings beside the shared ones, chaining as itself. */
    private static final class SomeStoreBuilder extends StoreBuilder<SomeStoreBuilder> {
        private String table = "locks";

        SomeStoreBuilder() {
            super(Duration.ofMillis(200), DEFAULT_RETRIES);
        }

        SomeStoreBuilder table(String table) {
            this.table = table;
            return this;
        }
    }

    @Test
    void sharedSettingsHaveDefaultsAndChainAsTheStoresBuilder() {
        SomeStoreBuilder builder = new SomeStoreBuilder();
        assertThat(builder.getOperationTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(builder.getIdleRecordRetention()).isEqualTo(Duration.ofHours(1));
        assertThat(builder.getRetries()).isSameAs(DEFAULT_RETRIES);

        RetryPolicy once = new RetryPolicy(1, Duration.ofMillis(10), Duration.ofMillis(10));
        SomeStoreBuilder chained = builder.operationTimeout(Duration.ofMillis(200)).idleRecordRetention(Duration.ofDays(365))
                .retries(once).table("other");
        assertThat(chained.table).isEqualTo("other");
        assertThat(builder.getOperationTimeout()).isEqualTo(Duration.ofMillis(200));
        assertThat(builder.getIdleRecordRetention()).isEqualTo(Duration.ofDays(365));
        assertThat(builder.getRetries()).isSameAs(once);
    }

    @Test
    void eachBadValueIsRefusedWithTheSettingAndItsRange() {
        SomeStoreBuilder builder = new SomeStoreBuilder();
        assertThatThrownBy(() -> builder.operationTimeout(Duration.ofMillis(199)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("operationTimeout must be between 200 ms and 10 min, was 199 ms");
        assertThatThrownBy(() -> builder.operationTimeout(null))
                .hasMessage("operationTimeout must be between 200 ms and 10 min, was null");
        assertThatThrownBy(() -> builder.idleRecordRetention(Duration.ofDays(366)))
                .hasMessage("idleRecordRetention must be between 1 s and 365 d, was 366 d");
        assertThatThrownBy(() -> builder.retries(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retries must not be null");
        assertThat(builder.getOperationTimeout()).as("a refused value changes nothing").isEqualTo(Duration.ofSeconds(5));
    }
}
