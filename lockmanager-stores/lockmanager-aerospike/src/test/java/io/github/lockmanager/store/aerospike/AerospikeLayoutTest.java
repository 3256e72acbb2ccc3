package io.github.lockmanager.store.aerospike;

import io.github.lockmanager.spi.LockKey;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Aerospike rules that need no server: TTLs, name limits, record keys. */
class AerospikeLayoutTest {
    @Test
    void ttlsRoundUpToWholeSecondsPlusOneAndAreNeverZeroOrNever() {
        assertThat(AerospikeLayout.ttlSeconds(Duration.ofMillis(1))).isEqualTo(2);
        assertThat(AerospikeLayout.ttlSeconds(Duration.ofMillis(100))).isEqualTo(2);
        assertThat(AerospikeLayout.ttlSeconds(Duration.ofMillis(1000))).isEqualTo(2);
        assertThat(AerospikeLayout.ttlSeconds(Duration.ofMillis(1001))).isEqualTo(3);
        assertThat(AerospikeLayout.ttlSeconds(Duration.ofSeconds(60))).isEqualTo(61);
    }

    @Test
    void setNamesOverSixtyThreeBytesAreRefusedWithTheReason() {
        String farm = "f".repeat(63 - "DC##locks".length());
        assertThat(AerospikeLayout.checkSetName(AerospikeLayout.dcSet(farm, "locks"))).hasSize(63);
        assertThatThrownBy(() -> AerospikeLayout.checkSetName(AerospikeLayout.dcSet(farm + "f", "locks")))
                .hasMessageContaining("64 bytes").hasMessageContaining("63");
        assertThatThrownBy(() -> AerospikeLayout.checkSetName("XDC#" + "é".repeat(30)))
                .as("bytes, not chars").hasMessageContaining("64 bytes");
        assertThatThrownBy(() -> AerospikeLayout.checkSetName("XDC#a:b")).hasMessageContaining("':' or ';'");
    }

    @Test
    void binNamesFitAerospikesLimit() {
        AerospikeLayout.checkBinNames();
        assertThat(AerospikeLayout.BINS).allSatisfy(bin -> assertThat(bin.getBytes()).hasSizeLessThanOrEqualTo(15));
    }

    @Test
    void recordKeysMapBackToTheirLockKeys() {
        for (LockKey key : new LockKey[]{LockKey.dc("farm1", "app", "a#b"), LockKey.xdc("app", "#x#")}) {
            String set = AerospikeLayout.setName(key, "locks");
            String userKey = AerospikeLayout.lockUserKey(key);
            assertThat(AerospikeLayout.isLockUserKey(userKey)).isTrue();
            assertThat(AerospikeLayout.isLockUserKey(AerospikeLayout.counterUserKey(key))).isFalse();
            assertThat(AerospikeLayout.lockKey(set, "locks", userKey)).isEqualTo(key);
        }
        assertThat(AerospikeLayout.lockKey("DC#farm1#other", "locks", "app#k")).as("another store's set").isNull();
    }
}
