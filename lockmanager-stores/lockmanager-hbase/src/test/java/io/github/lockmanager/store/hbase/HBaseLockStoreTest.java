package io.github.lockmanager.store.hbase;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.store.support.FencingEpoch;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.testing.support.BusyThreadInterrupts;
import io.github.lockmanager.testing.support.InstrumentedStore;
import io.github.lockmanager.testing.support.Requests;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.CRC32;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The HBase store's own guarantees, on a real HBase. */
class HBaseLockStoreTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static Connection connection;
    private static HBaseLockStore store;

    @BeforeAll
    static void createStore() throws LockManagerException {
        connection = HBaseCluster.connection();
        store = HBaseLockStore.builder(connection).tableName("lockmanager_store").build();
        store.initialize();
    }

    private static LockKey key(String name) {
        return Requests.uniqueKey("store-test", name);
    }

    @Test
    void theTableHasTheDocumentedLayout() throws Exception {
        try (Admin admin = connection.getAdmin()) {
            TableName table = TableName.valueOf("lockmanager_store");
            ColumnFamilyDescriptor family = admin.getDescriptor(table).getColumnFamily(Bytes.toBytes("D"));
            assertThat(family).isNotNull();
            assertThat(family.getCompressionType()).isEqualTo(Compression.Algorithm.GZ);
            assertThat(family.getMaxVersions()).isEqualTo(1);
            assertThat(family.isNewVersionBehavior()).as("classic versions: the store writes no marker that hides a put")
                    .isFalse();
            assertThat(admin.getDescriptor(table).getColumnFamilyCount()).isEqualTo(1);
            assertThat(admin.getRegions(table)).hasSize(256);
        }
    }

    @Test
    void nodesInitializingAtOnceAllSucceed() throws Exception {
        String table = "lockmanager_concurrent_" + UUID.randomUUID().toString().substring(0, 8);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Object>> inits = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Callable<Object> init = () -> {
                    HBaseLockStore.builder(connection).tableName(table).build().initialize();
                    return null;
                };
                inits.add(pool.submit(init));
            }
            for (Future<Object> init : inits) {
                init.get();
            }
        } finally {
            pool.shutdownNow();
        }
        try (Admin admin = connection.getAdmin()) {
            assertThat(admin.getRegions(TableName.valueOf(table))).hasSize(256);
        }
    }

    @Test
    void aTableWithoutTheLockFamilyIsRefusedWithTheReason() throws Exception {
        TableName name = TableName.valueOf("lockmanager_wrong_layout");
        try (Admin admin = connection.getAdmin()) {
            if (!admin.tableExists(name)) {
                admin.createTable(TableDescriptorBuilder.newBuilder(name)
                        .setColumnFamily(ColumnFamilyDescriptorBuilder.of("X")).build());
            }
        }
        HBaseLockStore wrong = HBaseLockStore.builder(connection).tableName(name.getNameAsString()).build();
        assertThatThrownBy(wrong::initialize).isInstanceOfSatisfying(LockManagerException.class, e -> {
            assertThat(e.getErrorCode()).isEqualTo(ErrorCode.TABLE_CREATION_ERROR);
            assertThat(e.getMessage()).contains("column family 'D' is missing");
        });
    }

    /** Tables created by earlier releases have NEW_VERSION_BEHAVIOR and rows whose owner cell was deleted. */
    @Test
    void aTableWithNewVersionBehaviourStillKeepsLocks() throws Exception {
        // a counter started on the region server's clock, as every counter of a row taken before is
        long leftBehind = FencingEpoch.STARTED_FLOOR + 5_000;
        TableName name = TableName.valueOf("lockmanager_new_versions");
        try (Admin admin = connection.getAdmin()) {
            if (!admin.tableExists(name)) {
                admin.createTable(TableDescriptorBuilder.newBuilder(name).setColumnFamily(ColumnFamilyDescriptorBuilder
                        .newBuilder(Bytes.toBytes("D")).setMaxVersions(1).setNewVersionBehavior(true).build()).build());
            }
        }
        HBaseLockStore older = HBaseLockStore.builder(connection).tableName(name.getNameAsString()).build();
        older.initialize();
        LockKey key = key("new-versions");
        try (Table table = connection.getTable(name)) {
            // what an earlier release left behind: a released lock's owner cell deleted, its counter kept
            byte[] row = rowKey(key);
            table.put(new Put(row).addColumn(Bytes.toBytes("D"), Bytes.toBytes("c"), Bytes.toBytes(leftBehind)));
            table.put(new Put(row).addColumn(Bytes.toBytes("D"), Bytes.toBytes("o"), Bytes.toBytes("gone")));
            table.delete(new Delete(row).addColumns(Bytes.toBytes("D"), Bytes.toBytes("o")));
        }
        AcquireResult first = older.acquire(Requests.request(key, "first"), LEASE);
        assertThat(first.isAcquired()).isTrue();
        assertThat(first.record().fencingToken()).isEqualTo(leftBehind + 1);
        assertThat(older.acquire(Requests.request(key, "rival"), LEASE).isAcquired()).isFalse();
        assertThat(older.release(first.record().handle())).isTrue();
        assertThat(older.read(key)).isEmpty();
        AcquireResult second = older.acquire(Requests.request(key, "second"), LEASE);
        assertThat(second.record().fencingToken()).isEqualTo(leftBehind + 2);
        assertThat(older.release(second.record().handle())).isTrue();
    }

    @Test
    void badSettingsAreNamed() {
        assertThatThrownBy(() -> HBaseLockStore.builder(null)).hasMessageContaining("connection");
        assertThatThrownBy(() -> HBaseLockStore.builder(connection).tableName("no spaces"))
                .hasMessageContaining("tableName 'no spaces'");
        assertThatThrownBy(() -> HBaseLockStore.builder(connection).operationTimeout(Duration.ZERO))
                .hasMessageContaining("operationTimeout");
    }

    @Test
    void everyAcquisitionIsVisibleToTheNextContenderInATightLoop() throws Exception {
        LockKey key = key("tight");
        int rounds = 1500;
        int doubleGrants = 0;
        int refusedWhileFree = 0;
        long lastToken = 0;
        for (int round = 0; round < rounds; round++) {
            String owner = (round % 2 == 0 ? "a" : "b") + round;
            AcquireResult mine = store.acquire(Requests.request(key, owner), LEASE);
            if (!mine.isAcquired()) {
                refusedWhileFree++;
                continue;
            }
            assertThat(mine.record().fencingToken()).isGreaterThan(lastToken);
            lastToken = mine.record().fencingToken();
            if (store.acquire(Requests.request(key, "rival" + round), LEASE).isAcquired()) {
                doubleGrants++;
            }
            assertThat(store.release(mine.record().handle())).isTrue();
        }
        System.out.printf("tight loop on one row: %d rounds, %d double grants, %d refused while free%n",
                rounds, doubleGrants, refusedWhileFree);
        assertThat(doubleGrants).isZero();
        assertThat(refusedWhileFree).isZero();
    }

    /**
     * The TCK's interrupt test on a store of its own, whose region cache is cold: HBase's {@code Table} cleared
     * interrupts in its region lookups, and each new key lies in one of 256 regions.
     */
    @Test
    void everyInterruptReachesAThreadBusyWithAStoreThatLooksUpRegions() throws Exception {
        try (HBaseLockStore cold = HBaseLockStore.builder(connection).tableName("lockmanager_store").build()) {
            BusyThreadInterrupts.eachReachesTheThread(cold, "store-test", 50);
        }
    }

    @Test
    void aClosedStoreRefusesCallsNamingItself() throws Exception {
        HBaseLockStore closed = HBaseLockStore.builder(connection).tableName("lockmanager_store").build();
        LockKey key = key("closed");
        AcquireResult taken = closed.acquire(Requests.request(key, "before"), LEASE);
        closed.close();
        assertThatThrownBy(() -> closed.acquire(Requests.request(key("closed"), "after"), LEASE))
                .isInstanceOf(LockManagerException.class)
                .hasMessageContaining("HBaseLockStore[lockmanager_store] is closed");
        assertThat(store.release(taken.record().handle())).as("the lock it took, released through another store")
                .isTrue();
    }

    @Test
    void theManagerRenewsItsLocksInCeilNOverBatchCalls() throws Exception {
        InstrumentedStore counted = new InstrumentedStore(store);
        try (LockManager manager = LockManagerBuilder.newBuilder().store(counted).clientId("batch-" + UUID.randomUUID()
                        .toString().substring(0, 8)).lease(Duration.ofSeconds(30)).renewalInterval(Duration.ofSeconds(1))
                .abortPollInterval(Duration.ofSeconds(1)).renewalBatchSize(10).build()) {
            for (int i = 0; i < 25; i++) {
                manager.lock("job-" + i);
            }
            // a cycle may have started while the locks were being taken: look at the two after the next cycle end
            int from = counted.renewBatchSizes().size();
            await().atMost(Duration.ofSeconds(30)).until(() -> counted.renewBatchSizes().size() >= from + 9);
            List<Integer> sizes = counted.renewBatchSizes();
            int cycleStart = sizes.subList(from, sizes.size()).indexOf(5) + from + 1;
            List<Integer> twoCycles = sizes.subList(cycleStart, cycleStart + 6);
            System.out.printf("HBase: 25 held locks, batch size 10: renew calls carried %s%n", twoCycles);
            // every held lock is renewed each cycle, in calls of at most 10: 10 + 10 + 5
            assertThat(twoCycles).containsExactly(10, 10, 5, 10, 10, 5);
        }
    }

    @Test
    void getLocksSeesLocksInEveryBucket() throws Exception {
        String client = "list-" + UUID.randomUUID().toString().substring(0, 8);
        for (int i = 0; i < 60; i++) {
            store.acquire(Requests.request(LockKey.xdc(client, "k" + i), "a"), LEASE);
        }
        List<LockRecord> mine = store.list().stream().filter(r -> r.key().clientId().equals(client)).toList();
        assertThat(mine).hasSize(60);
        assertThat(mine.stream().map(r -> rowBucket(r.key())).distinct().count()).as("buckets used").isGreaterThan(30);
    }

    private static int rowBucket(LockKey key) {
        CRC32 crc = new CRC32();
        crc.update(key.storageKey().getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() & 0xFF);
    }

    private static byte[] rowKey(LockKey key) {
        return Bytes.add(new byte[]{(byte) rowBucket(key)}, Bytes.toBytes(key.storageKey()));
    }

    @Test
    void idleRowsArePurgedAndTheirKeysComeBackWithHigherFencingTokens() throws Exception {
        HBaseLockStore purging = HBaseLockStore.builder(connection).tableName("lockmanager_store")
                .idleRecordRetention(Duration.ofSeconds(1)).build();
        LockKey key = key("purged");
        AcquireResult first = purging.acquire(Requests.request(key, "first"), LEASE);
        long firstToken = first.record().fencingToken();
        assertThat(firstToken).as("a new row's counter starts at the region server's clock")
                .isGreaterThan(1000 * (System.currentTimeMillis() - 600_000));
        AcquireResult second = purging.acquire(Requests.request(key, "second"), LEASE);
        assertThat(second.isAcquired()).isFalse();
        assertThat(purging.release(first.record().handle())).isTrue();
        LockHandle again = purging.acquire(Requests.request(key, "again"), LEASE).record().handle();
        long againToken = purging.read(key).orElseThrow().fencingToken();
        assertThat(againToken).as("a kept row counts on by one").isEqualTo(firstToken + 1);
        assertThat(purging.release(again)).isTrue();

        await().atMost(Duration.ofSeconds(30)).until(() -> purging.purgeIdleRecords() >= 0 && !rowExists(key));

        AcquireResult reborn = purging.acquire(Requests.request(key, "reborn"), LEASE);
        System.out.printf("HBase: token %d before the row was purged, %d after%n", againToken,
                reborn.record().fencingToken());
        assertThat(reborn.record().fencingToken()).as("a token never goes back, also after its row was deleted")
                .isGreaterThan(againToken);
        assertThat(purging.read(key).orElseThrow().fencingToken()).isEqualTo(reborn.record().fencingToken());
        assertThat(purging.acquire(Requests.request(key, "rival"), LEASE).isAcquired())
                .as("the purge's delete marker hides no later acquisition").isFalse();
        purging.release(reborn.record().handle());
    }

    @Test
    void aRowWithALiveLockIsNeverPurged() throws Exception {
        HBaseLockStore purging = HBaseLockStore.builder(connection).tableName("lockmanager_store")
                .idleRecordRetention(Duration.ofSeconds(1)).build();
        LockKey key = key("live");
        LockHandle held = purging.acquire(Requests.request(key, "holder"), LEASE).record().handle();

        await().during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(10)).until(() -> {
            purging.purgeIdleRecords();
            return purging.read(key).isPresent();
        });
        assertThat(purging.release(held)).isTrue();
    }

    @Test
    void anUnreachableClusterIsAConnectionErrorNamingTheQuorum() throws Exception {
        org.apache.hadoop.conf.Configuration conf = org.apache.hadoop.hbase.HBaseConfiguration.create();
        conf.set("hbase.zookeeper.quorum", "127.0.0.1");
        conf.setInt("hbase.zookeeper.property.clientPort", 1);
        conf.setInt("zookeeper.recovery.retry", 0);
        conf.setInt("zookeeper.session.timeout", 1_000);
        conf.setInt("hbase.client.retries.number", 1);
        conf.setInt("hbase.rpc.timeout", 1_000);
        conf.setInt("hbase.client.operation.timeout", 2_000);
        try (Connection nowhere = org.apache.hadoop.hbase.client.ConnectionFactory.createConnection(conf)) {
            HBaseLockStore unreachable = HBaseLockStore.builder(nowhere).tableName("lockmanager_store").build();
            assertThatThrownBy(unreachable::initialize).isInstanceOfSatisfying(LockManagerException.class, e -> {
                assertThat(e.getErrorCode()).isEqualTo(ErrorCode.CONNECTION_ERROR);
                assertThat(e).hasMessageContaining("ZooKeeper quorum 127.0.0.1 (client port 1)");
            });
        }
    }

    private static boolean rowExists(LockKey key) throws IOException {
        try (Table table = connection.getTable(TableName.valueOf("lockmanager_store"))) {
            return !table.get(new Get(rowKey(key))).isEmpty();
        }
    }
}
