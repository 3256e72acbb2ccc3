package io.github.lockmanager.store.hbase;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.testing.support.Requests;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.github.lockmanager.LockMode.EXCLUSIVE;
import static io.github.lockmanager.LockMode.SHARED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The HBase store's holder slots, on a real HBase: what the mode contract of the TCK cannot see from outside. */
class HBaseLockModesTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final String TABLE = "lockmanager_modes";
    private static Connection connection;
    private static HBaseLockStore store;

    @BeforeAll
    static void createStore() throws LockManagerException {
        connection = HBaseCluster.connection();
        store = HBaseLockStore.builder(connection).tableName(TABLE).build();
        store.initialize();
    }

    private static LockKey key(String name) {
        return Requests.uniqueKey("modes-test", name);
    }

    @Test
    void aRowKeepsAboutAsManySlotsAsItHadHoldersAtOnce() throws Exception {
        LockKey key = key("slots");
        List<LockHandle> steady = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            steady.add(store.acquire(Requests.request(key, "steady" + i, SHARED), LEASE).record().handle());
        }
        for (int round = 0; round < 200; round++) {
            AcquireResult passing = store.acquire(LockRequest.of(new LockHandle(key, "passing" + round), "node-passing",
                    "thread-passing", SHARED), LEASE);
            assertThat(passing.isAcquired()).isTrue();
            assertThat(store.release(passing.record().handle())).isTrue();
        }
        assertThat(store.list().stream().filter(r -> r.key().equals(key))).hasSize(3);
        // three steady holders and one passing at a time: without reuse the row would have 203 slots
        assertThat(slotColumns(key)).as("slot columns of the row").isEqualTo(4);
        for (LockHandle handle : steady) {
            assertThat(store.release(handle)).isTrue();
        }
    }

    @Test
    void theLastReaderToLeaveFreesTheOwnerCell() throws Exception {
        LockKey key = key("last");
        LockHandle first = store.acquire(Requests.request(key, "first", SHARED), LEASE).record().handle();
        LockHandle second = store.acquire(Requests.request(key, "second", SHARED), LEASE).record().handle();
        assertThat(store.release(first)).isTrue();
        assertThat(ownerCell(key)).as("a reader is still there").isEqualTo("~shared");
        assertThat(store.release(second)).isTrue();
        assertThat(ownerCell(key)).as("the last reader left").isEmpty();
        AcquireResult writer = store.acquire(Requests.request(key, "writer", EXCLUSIVE), LEASE);
        assertThat(writer.isAcquired()).isTrue();
        assertThat(store.release(writer.record().handle())).isTrue();
    }

    /** A force-release asked on another node: a store that did not take the reader frees its slot by the handle. */
    @Test
    void anotherStoreReleasesAReaderByItsHandle() throws Exception {
        LockKey key = key("foreign");
        LockHandle reader = store.acquire(Requests.request(key, "reader", SHARED), LEASE).record().handle();
        LockHandle other = store.acquire(Requests.request(key, "other", SHARED), LEASE).record().handle();
        HBaseLockStore admin = HBaseLockStore.builder(connection).tableName(TABLE).build();
        assertThat(admin.release(reader)).isTrue();
        assertThat(admin.release(reader)).as("released once").isFalse();
        assertThat(store.check(List.of(reader, other))).containsEntry(reader, HoldState.LOST)
                .containsEntry(other, HoldState.HELD);
        assertThat(store.release(other)).isTrue();
        assertThat(store.acquire(Requests.request(key, "writer", EXCLUSIVE), LEASE).isAcquired()).isTrue();
    }

    @Test
    void aRowLeftByACrashedReaderIsPurged() throws Exception {
        HBaseLockStore purging = HBaseLockStore.builder(connection).tableName(TABLE)
                .idleRecordRetention(Duration.ofSeconds(1)).build();
        LockKey key = key("purged");
        LockRecord crashed = purging.acquire(Requests.request(key, "crashed", SHARED), Duration.ofSeconds(1)).record();

        await().atMost(Duration.ofSeconds(30)).until(() -> purging.purgeIdleRecords() >= 0 && slotColumns(key) < 0);
        AcquireResult reborn = purging.acquire(Requests.request(key, "reborn", SHARED), LEASE);
        assertThat(reborn.record().fencingToken()).isGreaterThan(crashed.fencingToken());
        assertThat(purging.release(reborn.record().handle())).isTrue();
    }

    @Test
    void aRepeatedRequestFindsItsOwnSlotInsteadOfTakingASecond() throws Exception {
        LockKey key = key("repeated");
        // what a retry after a timed-out write that applied looks like to the store; a store of its own, so that
        // what it keeps claimed can be seen
        HBaseLockStore store = HBaseLockStore.builder(connection).tableName(TABLE).build();
        HolderSlots own = store.holderSlots();
        // (that it is granted as the same holder is the TCK's mode contract)
        AcquireResult first = store.acquire(Requests.request(key, "reader", SHARED), LEASE);
        store.acquire(Requests.request(key, "reader", SHARED), LEASE);
        assertThat(store.release(first.record().handle())).isTrue();
        assertThat(own.claimedKeys()).as("slots this store still keeps claimed").isZero();
    }

    private static String ownerCell(LockKey key) throws Exception {
        return Bytes.toString(row(key).getValue(Bytes.toBytes("D"), Bytes.toBytes("o")));
    }

    /** How many holder slot columns the key's row has, or -1 if the row is gone. */
    private static int slotColumns(LockKey key) throws Exception {
        Result row = row(key);
        if (row.isEmpty()) {
            return -1;
        }
        return (int) row.getFamilyMap(Bytes.toBytes("D")).keySet().stream().filter(q -> HBaseTableLayout.slotOf(q) >= 0)
                .count();
    }

    private static Result row(LockKey key) throws Exception {
        try (Table table = connection.getTable(TableName.valueOf(TABLE))) {
            return table.get(new Get(HBaseTableLayout.rowKey(key.storageKey())));
        }
    }
}
