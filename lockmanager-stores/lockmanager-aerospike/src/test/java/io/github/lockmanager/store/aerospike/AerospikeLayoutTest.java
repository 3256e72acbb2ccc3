package io.github.lockmanager.store.aerospike;

import com.aerospike.client.Record;
import io.github.lockmanager.spi.LockKey;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Aerospike rules that need no server: TTLs, name limits, record keys, how results are read. */
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

    @Test
    void holderRecordKeysAreNeitherLockKeysNorAmbiguous() {
        LockKey key = LockKey.xdc("app", "n");
        String holder = AerospikeLayout.holderUserKey(key, "x#y");
        assertThat(AerospikeLayout.isLockUserKey(holder)).isFalse();
        assertThat(AerospikeLayout.isLockUserKey("")).isFalse();
        // a '#' in the token or in the name cannot make two holders of different keys share a record
        assertThat(holder).isNotEqualTo(AerospikeLayout.holderUserKey(LockKey.xdc("app", "n#x"), "y"));
        assertThat(AerospikeLayout.holderUserKey(LockKey.xdc("app", "n#x"), "y"))
                .isNotEqualTo(AerospikeLayout.holderUserKey(key, "x#y"));
    }

    @Test
    void aMarkersResultsAreReadWhetherTheClientGaveOneValueOrAList() {
        Record single = new Record(Map.of("holders", 2L), 1, 0);
        Record several = new Record(Map.of("holders", List.of(3L, 0L)), 1, 0);
        assertThat(AerospikeHolders.lastLong(single, "holders")).isEqualTo(2);
        assertThat(AerospikeHolders.lastLong(several, "holders")).isZero();
        assertThat(AerospikeHolders.lastLong(single, "token")).as("no such bin").isZero();
        assertThat(AerospikeHolders.isMarker(new Record(Map.of("owner", "~shared"), 1, 0))).isTrue();
        assertThat(AerospikeHolders.isMarker(new Record(Map.of("owner", "node-1"), 1, 0))).isFalse();
        assertThat(AerospikeHolders.isMarker(null)).isFalse();
        assertThat(AerospikeHolders.entries(new Record(Map.of("owner", "~shared"), 1, 0))).isEmpty();
    }
}
