package io.github.lockmanager.store.aerospike;

import com.aerospike.client.Record;
import io.github.lockmanager.spi.LockKey;
import org.junit.jupiter.api.Test;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.spi.LockRecord;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.TreeMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Aerospike rules that need no server: TTLs, name limits, record keys, how results are read. */
class AerospikeLayoutTest {
    @Test
    void aRecordOutlivesItsLeaseByTheRetentionInWholeSeconds() {
        Duration hour = Duration.ofHours(1);
        assertThat(AerospikeLayout.ttlSeconds(hour, Duration.ofMillis(1))).isEqualTo(3600 + 2);
        assertThat(AerospikeLayout.ttlSeconds(hour, Duration.ofMillis(1000))).isEqualTo(3600 + 2);
        assertThat(AerospikeLayout.ttlSeconds(hour, Duration.ofMillis(1001))).isEqualTo(3600 + 3);
        assertThat(AerospikeLayout.ttlSeconds(Duration.ofSeconds(1), Duration.ofSeconds(1))).isEqualTo(3);
    }

    @Test
    void aTagKeepsTheModeAboveTheLeaseEnd() {
        long end = Instant.parse("2500-01-01T00:00:00Z").toEpochMilli();
        for (LockMode mode : LockMode.values()) {
            long tag = AerospikeLayout.modeBase(mode) + end;
            assertThat(AerospikeLayout.modeOf(tag)).isEqualTo(mode);
            assertThat(AerospikeLayout.endOf(tag)).isEqualTo(end);
        }
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
            assertThat(AerospikeLayout.lockKey(set, "locks", AerospikeLayout.lockUserKey(key))).isEqualTo(key);
        }
        assertThat(AerospikeLayout.lockKey("DC#farm1#other", "locks", "app#k")).as("another store's set").isNull();
        assertThat(AerospikeLayout.lockKey("XDC#locks", "locks", "#fence#app#k")).as("an older layout's counter").isNull();
    }

    @Test
    void holdersAreReadWhetherTheClientGaveOneValueOrAListOfResults() {
        LockKey key = LockKey.xdc("app", "k");
        long now = 1_800_000_000_000L;
        List<Object> reader = Arrays.asList(AerospikeLayout.modeBase(LockMode.SHARED) + now + 5000, 7L, "n1", "t1", now, 5000L);
        List<Object> expired = Arrays.asList(AerospikeLayout.modeBase(LockMode.SHARED) + now - 1, 5L, "n2", "t2", now - 9000, 5000L);
        Map<String, Object> holders = new TreeMap<>(Map.of("r1", reader, "old", expired));
        Record afterWrite = new Record(Map.of("holders", Arrays.asList(null, holders), "now", now, "abort", 5L), 1, 0);

        List<LockRecord> live = AerospikeEntries.holders(key, afterWrite, true);
        assertThat(live).singleElement().satisfies(holder -> {
            assertThat(holder.ownerToken()).isEqualTo("r1");
            assertThat(holder.mode()).isEqualTo(LockMode.SHARED);
            assertThat(holder.fencingToken()).isEqualTo(7);
            assertThat(holder.status()).as("granted after the abort mark").isEqualTo(LockStatus.RUNNING);
            assertThat(holder.expirationTime()).isEqualTo(Instant.ofEpochMilli(now + 5000));
        });
        assertThat(AerospikeEntries.holders(key, new Record(Map.of("holders", holders, "now", now, "abort", 5L), 1, 0), false))
                .extracting(LockRecord::ownerToken, LockRecord::status)
                .containsExactly(tuple("old", LockStatus.ABORT), tuple("r1", LockStatus.RUNNING));
        assertThat(AerospikeEntries.holders(key, null, true)).isEmpty();
    }
}
