package io.github.lockmanager.store.hbase;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockData;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.testing.support.InstrumentedStore;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import io.github.lockmanager.testing.LockDataContract;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Data kept in the lock's own row, on the mini cluster: the TCK's contract, and what a row's data family adds. */
class HBaseRowDataTest extends LockDataContract<byte[]> {
    private static final String TABLE = "lockmanager_rowdata";
    private static Connection connection;
    private static HBaseLockStore store;
    private static HBaseRowData data;

    private final List<LockManager> managers = new ArrayList<>();
    private final String client = "rowdata-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void createStore() throws LockManagerException {
        connection = HBaseCluster.connection();
        store = HBaseLockStore.builder(connection).tableName(TABLE).build();
        store.initialize();
        data = new HBaseRowData(store, "data");
        data.initialize();
        data.initialize();
    }

    @Override
    protected io.github.lockmanager.spi.LockStore store() {
        return store;
    }

    @Override
    protected LockData<byte[]> data() {
        return data;
    }

    @Override
    protected byte[] value(String text) {
        return Bytes.toBytes(text);
    }

    @Override
    protected String text(byte[] value) {
        return Bytes.toString(value);
    }

    @AfterEach
    void closeManagers() {
        managers.forEach(LockManager::close);
    }

    private LockManager node(String node, io.github.lockmanager.spi.LockStore lockStore, Duration lease)
            throws LockManagerException {
        LockManager manager = LockManagerBuilder.newBuilder().store(lockStore).clientId(client).nodeId(node)
                .lease(lease).abortPollInterval(lease.dividedBy(4)).shutdownTimeout(Duration.ofSeconds(2)).build();
        managers.add(manager);
        return manager;
    }

    private static Map<String, byte[]> value(String column, long value) {
        return Map.of(column, Bytes.toBytes(value));
    }

    private static long valueOf(Map<String, byte[]> row, String column) {
        byte[] value = row.get(column);
        return value == null ? 0 : Bytes.toLong(value);
    }

    /** The data family's cell of {@code key}'s row, read without any lock. */
    private byte[] rawData(String key, String column) throws Exception {
        byte[] row = HBaseTableLayout.rowKey(LockKey.dc("default", client, key).storageKey());
        try (Table table = connection.getTable(TableName.valueOf(TABLE))) {
            return table.get(new Get(row).addColumn(Bytes.toBytes("data"), Bytes.toBytes(column)))
                    .getValue(Bytes.toBytes("data"), Bytes.toBytes(column));
        }
    }



    @Test
    void dataOutlivesTheLeaseOfTheLockThatWroteIt() throws Exception {
        InstrumentedStore cut = new InstrumentedStore(store);
        LockManager a = node("a", cut, Duration.ofMillis(1500));
        // a holder thread of its own: the loss interrupts it, and this thread still has HBase calls to make
        ExecutorService holder = Executors.newSingleThreadExecutor(r -> new Thread(r, "row-data-holder"));
        LockResource held;
        try {
            held = holder.submit(() -> a.lock("job")).get(30, TimeUnit.SECONDS);
            data.change(held, value("checkpoint", 7), List.of());
            // the node loses the store: its lock ends by the owner cell's TTL, the data cell has none
            cut.setUnreachable(true);
            await().atMost(Duration.ofSeconds(30)).until(() -> held.isLost()
                    && store.read(LockKey.dc("default", client, "job")).isEmpty());
        } finally {
            holder.shutdownNow();
        }
        assertThat(Bytes.toLong(rawData("job", "checkpoint"))).isEqualTo(7);
        LockManager b = node("b", store, Duration.ofSeconds(30));
        try (LockResource next = b.lock("job")) {
            assertThat(valueOf(data.read(next), "checkpoint")).isEqualTo(7);
        }
    }

    @Test
    void purgingAnIdleRowKeepsItsData() throws Exception {
        HBaseLockStore purging = HBaseLockStore.builder(connection).tableName(TABLE)
                .idleRecordRetention(Duration.ofSeconds(1)).build();
        LockManager a = node("a", store, Duration.ofSeconds(30));
        try (LockResource held = a.lock("idle")) {
            data.change(held, value("kept", 5), List.of());
        }
        byte[] row = HBaseTableLayout.rowKey(LockKey.dc("default", client, "idle").storageKey());
        try (Table table = connection.getTable(TableName.valueOf(TABLE))) {
            await().atMost(Duration.ofSeconds(30)).until(() -> purging.purgeIdleRecords() >= 0
                    && table.get(new Get(row).addFamily(HBaseTableLayout.FAMILY)).isEmpty());
        }
        assertThat(Bytes.toLong(rawData("idle", "kept"))).isEqualTo(5);
    }


    @Test
    void badUseIsRefusedNamingWhatIsWrong() throws Exception {
        assertThatThrownBy(() -> new HBaseRowData(store, "D")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'D'");
        assertThatThrownBy(() -> new HBaseRowData(store, "a:b")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'a:b'");
        assertThatThrownBy(() -> new HBaseRowData(null, "data")).hasMessageContaining("store");
        LockManager a = node("a", store, Duration.ofSeconds(30));
        try (LockResource held = a.lock("order")) {
            assertThatThrownBy(() -> data.change(held, Map.of("", new byte[1]), List.of()))
                    .hasMessageContaining("qualifier");
        }
    }
}
