package io.github.lockmanager.store.redis;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The holder entries the scripts keep read back as written, whatever node ids and thread names hold. */
class RedisEntriesTest {
    private static final LockKey KEY = LockKey.xdc("entries", "k");

    @Test
    void nodeIdsAndThreadNamesWithSpacesDigitsAndAnyTextReadBackAsWritten() {
        String entry = "2 1700000030000 1700000000000 1700000000000000 " + RedisEntries.tail("node 7 ü", "pool-1 thread 12 ✓");
        LockRecord record = RedisEntries.record(KEY, "owner-1", entry, 0);
        assertThat(record.nodeId()).isEqualTo("node 7 ü");
        assertThat(record.threadName()).isEqualTo("pool-1 thread 12 ✓");
        assertThat(record.mode()).isEqualTo(LockMode.SHARED);
        assertThat(record.expirationTime()).isEqualTo(Instant.ofEpochMilli(1700000030000L));
        assertThat(record.lockTime()).isEqualTo(Instant.ofEpochMilli(1700000000000L));
        assertThat(record.fencingToken()).isEqualTo(1700000000000000L);
        assertThat(record.status()).isEqualTo(LockStatus.RUNNING);
        assertThat(RedisEntries.record(KEY, "owner-1", entry, 1700000000000000L).status()).isEqualTo(LockStatus.ABORT);
    }

    @Test
    void aReadAnswerListsLiveHoldersOrAllOfThem() {
        String live = "3 2000 1000 5 " + RedisEntries.tail("a", "t");
        String ended = "3 900 500 4 " + RedisEntries.tail("b", "t");
        List<Object> answer = List.of(1000L, 0L, "h:one", live, "h:two", ended);
        assertThat(RedisEntries.holders(KEY, answer, true)).extracting(LockRecord::ownerToken).containsExactly("one");
        assertThat(RedisEntries.holders(KEY, answer, false)).extracting(LockRecord::ownerToken)
                .containsExactly("one", "two");
    }

    @Test
    void anEntryThisStoreDidNotWriteIsReportedWithTheKeyAndOwner() {
        assertThatThrownBy(() -> RedisEntries.record(KEY, "owner-9", "garbage", 0))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("'k'").hasMessageContaining("owner-9");
    }
}
