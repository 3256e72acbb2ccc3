package io.github.lockmanager.store.hbase;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.testing.StoredFormat;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The stored format, pinned as bytes: rows written cell by cell as a release of this store wrote them are read,
 * renewed, respected and released by this one, and what this one writes has that form. A change of format fails
 * here, not in a cluster that upgrades node by node.
 */
class HBaseFormatTest {
    /** The lock-modes test's table: a lock table of 256 regions costs the mini cluster seconds to make. */
    private static final String TABLE = "lockmanager_modes";
    private static final HexFormat HEX = HexFormat.of();
    /** Lock time 1700000000000 ms, lease 60000 ms, node "node-a", thread "thread-1". */
    private static final String META = "0000018bcfe56800000000000000ea60000000066e6f64652d617468726561642d31";
    /** Mode SHARED (2), owner "reader-1", token 0 (none before its first renewal), meta of node "b", thread "t". */
    private static final String SHARED_HOLDER =
            "0200087265616465722d3100000000000000000000018bcfe56800000000000000ea60000000016274";
    /** Mode PERMIT (4) of 2 permits, owner "permit-1", token 0, meta of node "c", thread "z". */
    private static final String PERMIT_HOLDER =
            "04000200087065726d69742d3100000000000000000000018bcfe56800000000000000ea6000000001637a";

    private static Connection connection;
    private static HBaseLockStore store;
    private final String client = "fmt-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void createStore() throws LockManagerException {
        connection = HBaseCluster.connection();
        store = HBaseLockStore.builder(connection).tableName(TABLE).build();
        store.initialize();
    }

    @Test
    void rowKeysColumnsAndCellsArePinned() {
        assertThat(HEX.formatHex(HBaseTableLayout.rowKey("DC#farm-1#fmt#order-7")))
                .as("a one-byte CRC-32 bucket, then the storage key").isEqualTo("ff4443236661726d2d3123666d74236f726465722d37");
        assertThat(List.of(HBaseTableLayout.OWNER, HBaseTableLayout.META, HBaseTableLayout.COUNTER,
                HBaseTableLayout.ABORT, HBaseTableLayout.RELEASED_BY)).extracting(Bytes::toString)
                .containsExactly("o", "m", "c", "a", "r");
        assertThat(HEX.formatHex(HBaseTableLayout.holder(258))).isEqualTo("680102");
        assertThat(HEX.formatHex(HBaseTableLayout.slotAbort(258))).isEqualTo("780102");
        assertThat(HEX.formatHex(LockMeta.encode("node-a", "thread-1", 1700000000000L, 60_000))).isEqualTo(META);
        assertThat(HEX.formatHex(new HolderCell(LockMode.SHARED, 0, "reader-1", 0,
                new LockMeta("b", "t", 1700000000000L, 60_000)).encode())).isEqualTo(SHARED_HOLDER);
        assertThat(HEX.formatHex(new HolderCell(LockMode.PERMIT, 2, "permit-1", 0,
                new LockMeta("c", "z", 1700000000000L, 60_000)).encode())).isEqualTo(PERMIT_HOLDER);
        assertThat(HolderCell.decode(HEX.parseHex(PERMIT_HOLDER)))
                .isEqualTo(new HolderCell(LockMode.PERMIT, 2, "permit-1", 0, new LockMeta("c", "z", 1700000000000L,
                        60_000)));
    }

    @Test
    void anExclusiveRowOfFormatOneIsRead() throws Exception {
        LockKey key = LockKey.dc("farm-1", client, "order-7");
        byte[] row = HBaseTableLayout.rowKey(key.storageKey());
        try (Table table = connection.getTable(TableName.valueOf(TABLE))) {
            table.put(new Put(row).addColumn(HBaseTableLayout.FAMILY, HBaseTableLayout.META, HEX.parseHex(META))
                    .addColumn(HBaseTableLayout.FAMILY, HBaseTableLayout.COUNTER, Bytes.toBytes(1700000000000041L)));
            table.put(HBaseTableLayout.leasedOwner(row, Bytes.toBytes("writer-1"), 60_000));
        }
        StoredFormat.readsExclusive(store, key, "writer-1", "node-a", "thread-1", 1700000000000L, 1700000000000041L,
                1700000000000041L);
    }

    @Test
    void sharedAndPermitSlotsOfFormatOneAreRead() throws Exception {
        LockKey readers = LockKey.xdc(client, "report");
        LockKey pool = LockKey.xdc(client, "pool");
        try (Table table = connection.getTable(TableName.valueOf(TABLE))) {
            for (LockKey key : List.of(readers, pool)) {
                byte[] row = HBaseTableLayout.rowKey(key.storageKey());
                table.put(new Put(row).addColumn(HBaseTableLayout.FAMILY, HBaseTableLayout.OWNER,
                                HBaseTableLayout.SHARED_OWNER)
                        .addColumn(HBaseTableLayout.FAMILY, HBaseTableLayout.COUNTER, Bytes.toBytes(21L)));
                table.put(new Put(row).addColumn(HBaseTableLayout.FAMILY, HBaseTableLayout.holder(0),
                        HEX.parseHex(key == readers ? SHARED_HOLDER : PERMIT_HOLDER)).setTTL(60_000));
            }
        }
        LockRecord reader = store.inspect(readers).get(0);
        assertThat(reader.mode()).isEqualTo(LockMode.SHARED);
        assertThat(reader.ownerToken()).isEqualTo("reader-1");
        assertThat(reader.nodeId()).isEqualTo("b");
        LockHandle permit2 = StoredFormat.readsPermit(store, pool, "permit-1", 2, "z");
        LockHandle second = new LockHandle(readers, "reader-2");
        assertThat(store.acquire(LockRequest.of(second, "n", "t", LockMode.SHARED), Duration.ofMinutes(1)).isAcquired())
                .isTrue();
        assertThat(store.acquire(LockRequest.of(new LockHandle(readers, "writer"), "n", "t", LockMode.EXCLUSIVE),
                Duration.ofMinutes(1)).isAcquired()).isFalse();
        // a slot names its holder by a store's own bookkeeping, so the holders written by another process end with
        // their leases or by the operator's release
        for (LockHandle handle : List.of(second, permit2)) {
            assertThat(store.release(handle)).as(handle.toString()).isTrue();
        }
        assertThat(store.releaseEvery(readers)).extracting(LockRecord::ownerToken).containsExactly("reader-1");
        assertThat(store.releaseEvery(pool)).extracting(LockRecord::ownerToken).containsExactly("permit-1");
    }

    @Test
    void whatThisStoreWritesIsFormatOne() throws Exception {
        LockKey key = LockKey.xdc(client, "written");
        LockHandle reader = new LockHandle(key, "reader-1");
        assertThat(store.acquire(LockRequest.of(reader, "b", "t", LockMode.SHARED), Duration.ofMinutes(1))
                .isAcquired()).isTrue();
        Result row;
        try (Table table = connection.getTable(TableName.valueOf(TABLE))) {
            row = table.get(new Get(HBaseTableLayout.rowKey(key.storageKey())));
        }
        assertThat(Bytes.toString(row.getValue(HBaseTableLayout.FAMILY, HBaseTableLayout.OWNER))).isEqualTo("~shared");
        // one holder slot, wherever the store chose it: 'h' and two bytes of slot number
        List<byte[]> slots = row.getFamilyMap(HBaseTableLayout.FAMILY).keySet().stream()
                .filter(q -> HBaseTableLayout.slotOf(q) >= 0).toList();
        assertThat(slots).hasSize(1);
        String holder = HEX.formatHex(row.getValue(HBaseTableLayout.FAMILY, slots.get(0)));
        // mode, owner and an empty token as pinned; then this grant's own lock time and lease
        assertThat(holder).startsWith("0200087265616465722d310000000000000000").endsWith("000000016274");
        assertThat(holder).hasSize(SHARED_HOLDER.length());
        store.release(reader);
    }

    @Test
    void aTableNamesItsFormatAndOneOfALaterFormatIsRefused() throws Exception {
        try (Admin admin = connection.getAdmin()) {
            assertThat(admin.getDescriptor(TableName.valueOf(TABLE)).getValue("lockmanager.format")).isEqualTo("1");

            // a table made before the attribute existed is format 1; one a later release marked is refused
            TableName earlier = TableName.valueOf("lockmanager_format_earlier_" + client.substring(4));
            TableName later = TableName.valueOf("lockmanager_format_later_" + client.substring(4));
            admin.createTable(TableDescriptorBuilder.newBuilder(HBaseTableLayout.descriptor(earlier))
                    .removeValue(Bytes.toBytes("lockmanager.format")).build());
            admin.createTable(TableDescriptorBuilder.newBuilder(HBaseTableLayout.descriptor(later))
                    .setValue("lockmanager.format", "2").build());
            HBaseLockStore.builder(connection).tableName(earlier.getNameAsString()).build().initialize();
            assertThatThrownBy(() -> HBaseLockStore.builder(connection).tableName(later.getNameAsString()).build()
                    .initialize()).isInstanceOf(LockManagerException.class)
                    .satisfies(e -> assertThat(((LockManagerException) e).getErrorCode())
                            .isEqualTo(ErrorCode.TABLE_CREATION_ERROR))
                    .hasMessageContaining("format '2'").hasMessageContaining("later release");
            for (TableName made : List.of(earlier, later)) {
                admin.disableTable(made);
                admin.deleteTable(made);
            }
        }
    }
}
