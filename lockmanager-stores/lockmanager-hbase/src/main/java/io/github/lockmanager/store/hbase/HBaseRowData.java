package io.github.lockmanager.store.hbase;

import io.github.lockmanager.LockData;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.store.support.DataUnderLock;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.util.Bytes;

import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

import static io.github.lockmanager.store.hbase.HBaseTableLayout.FAMILY;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.FREE;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.OWNER;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.RELEASED_BY;

/**
 * The caller's data kept in the lock's own row (Astyanax's row lock recipe): a column family of the lock table that
 * the caller names holds the data a lock protects, next to the lock's cells, so that HBase's row atomicity guards
 * it. Every read and change is checked against the lock's owner cell in the same call, so a holder whose lease ran
 * out (or whose lock was force-released) can neither read data as if it held the lock nor change it, and the last
 * change can release the lock in the same atomic write.
 *
 * <pre>{@code
 * HBaseRowData orders = new HBaseRowData(store, "data");
 * orders.initialize();                                          // adds the family to the lock table if absent
 * try (LockResource held = locks.lock("order-123")) {
 *     Map<String, byte[]> row = orders.read(held);              // 1 round trip
 *     orders.releaseWithChanges(held, Map.of("state", bytes("PAID")), List.of());   // 1: the changes and the release
 * }
 * }</pre>
 *
 * <p>Round trips: {@link #read} 1 (a get of the data family and the owner cell), {@link #change} 1 and
 * {@link #releaseWithChanges} 1 (a check-and-mutate on the owner cell): the release with changes costs what a
 * plain release does. Taking the lock is the manager's {@code lock} (1), so lock, read, change and release cost 3.
 * The data cells carry no TTL: they outlive every lease, and {@link HBaseLockStore#purgeIdleRecords()} removes only
 * the lock's cells of an idle row. Exclusive locks only; the data family's settings (versions, TTL, compression)
 * are the caller's. Thread-safe.
 */
public final class HBaseRowData implements LockData<byte[]> {
    private final HBaseAccess store;
    private final byte[] family;

    /**
     * @param store  the store whose lock table holds the data; the managers that take the locks use it
     * @param family the column family of the data, not the store's own {@code D}
     * @throws IllegalArgumentException if the family name is empty, not a valid family name, or {@code D}
     */
    public HBaseRowData(HBaseLockStore store, String family) {
        this.store = Require.notNull(store, "store").access();
        Require.notEmpty(family, "family");
        try {
            ColumnFamilyDescriptorBuilder.isLegalColumnFamilyName(Bytes.toBytes(family));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("family '" + family + "' is not a valid HBase column family name: "
                    + e.getMessage(), e);
        }
        Require.argument(!Arrays.equals(Bytes.toBytes(family), FAMILY), "family '%s' is the lock store's own; name "
                + "another for the data", family);
        this.family = Bytes.toBytes(family);
    }

    /** Adds the data family to the lock table if it lacks it; idempotent. Call after the store's initialize. */
    public void initialize() throws LockManagerException {
        TableName table = store.tableName();
        try (Admin admin = store.connection().getAdmin()) {
            if (admin.getDescriptor(table).getColumnFamily(family) == null) {
                admin.addColumnFamily(table, ColumnFamilyDescriptorBuilder.of(family));
            }
        } catch (IOException e) {
            if (!hasFamily(table)) {
                throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "could not add column family '"
                        + Bytes.toString(family) + "' to lock table " + table + ": " + e, e);
            }
        }
    }

    private boolean hasFamily(TableName table) {
        try (Admin admin = store.connection().getAdmin()) {
            return admin.getDescriptor(table).getColumnFamily(family) != null;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The data columns of the lock's row (qualifier to value, in qualifier order), read in the same call that
     * checks the lock is still this acquisition's.
     *
     * @throws LockLostException if it is not: nothing read may be relied on
     */
    @Override
    public Map<String, byte[]> read(LockResource held) throws LockManagerException, LockLostException {
        LockHandle handle = DataUnderLock.handleOf(held);
        byte[] row = HBaseTableLayout.rowKey(handle.key().storageKey());
        Result result = store.call("read the data of lock '" + handle.key().name() + "'",
                table -> table.get(new Get(row).addColumn(FAMILY, OWNER).addFamily(family)));
        if (!Arrays.equals(result.getValue(FAMILY, OWNER), Bytes.toBytes(handle.ownerToken()))) {
            throw DataUnderLock.lost(handle, "HBase table " + store.tableName(), "its data was not read");
        }
        Map<String, byte[]> data = new LinkedHashMap<>();
        NavigableMap<byte[], byte[]> columns = result.getFamilyMap(family);
        if (columns != null) {
            columns.forEach((qualifier, value) -> data.put(Bytes.toString(qualifier), value));
        }
        return data;
    }

    /**
     * Writes {@code puts} and deletes {@code deletes} (qualifiers of the data family) in one atomic write, applied
     * only while the lock is this acquisition's; the lock stays held.
     *
     * @throws LockLostException if it is not: nothing was written
     */
    @Override
    public void change(LockResource held, Map<String, ? extends byte[]> puts, Collection<String> deletes)
            throws LockManagerException, LockLostException {
        DataUnderLock.change(held, "HBase table " + store.tableName(),
                (handle, release) -> write(handle, puts, deletes, release));
    }

    /**
     * Writes the changes and releases the lock in one atomic write (Astyanax's {@code releaseWithMutation}): both
     * or neither. When the calling thread holds the lock more than once, only the changes are written and this hold
     * given back. If the write fails the lock is released by the manager apart.
     *
     * @throws LockLostException if the lock was not this acquisition's: nothing was written
     */
    @Override
    public void releaseWithChanges(LockResource held, Map<String, ? extends byte[]> puts,
                                   Collection<String> deletes)
            throws LockManagerException, LockLostException {
        DataUnderLock.releaseWith(held, "HBase table " + store.tableName(),
                (handle, release) -> write(handle, puts, deletes, release));
    }

    /** The changes, and with {@code release} the freed owner cell, in one write conditional on the owner. */
    private boolean write(LockHandle handle, Map<String, ? extends byte[]> puts, Collection<String> deletes,
                          boolean release)
            throws LockManagerException {
        Require.notNull(puts, "puts");
        Require.notNull(deletes, "deletes");
        byte[] row = HBaseTableLayout.rowKey(handle.key().storageKey());
        byte[] owner = Bytes.toBytes(handle.ownerToken());
        RowMutations mutations = new RowMutations(row, 3);
        try {
            if (!puts.isEmpty()) {
                Put put = new Put(row);
                new TreeMap<>(puts).forEach((qualifier, value) -> put.addColumn(family, qualifier(qualifier),
                        Require.notNull(value, "value of column " + qualifier)));
                mutations.add(put);
            }
            if (!deletes.isEmpty()) {
                Delete delete = new Delete(row);
                for (String qualifier : deletes) {
                    delete.addColumns(family, qualifier(qualifier));
                }
                mutations.add(delete);
            }
            if (release) {
                mutations.add(new Put(row).addColumn(FAMILY, OWNER, FREE).addColumn(FAMILY, RELEASED_BY, owner));
            }
        } catch (IOException e) {
            throw new IllegalStateException("mutations of one row refused: " + e, e);
        }
        if (mutations.getMutations().isEmpty()) {
            return store.call("check lock '" + handle.key().name() + "'", table -> Arrays.equals(owner,
                    table.get(new Get(row).addColumn(FAMILY, OWNER)).getValue(FAMILY, OWNER)));
        }
        return store.call("write the data of lock '" + handle.key().name() + "'", table -> written(table, row, owner,
                mutations, release));
    }

    /**
     * Applies the write. One whose answer was lost may have applied: a write of changes is retried as it is (it
     * writes the same values again), and a write that released the lock is known by the {@code r} cell it left,
     * which names the acquisition that released with it.
     */
    private static boolean written(LockTable table, byte[] row, byte[] owner, RowMutations mutations, boolean release)
            throws IOException {
        try {
            if (table.checkAndMutate(CheckAndMutate.newBuilder(row).ifEquals(FAMILY, OWNER, owner).build(mutations))
                    .isSuccess()) {
                return true;
            }
        } catch (IOException e) {
            if (release && releasedBy(table, row, owner)) {
                return true;
            }
            throw e;
        }
        // refused: a release by an earlier attempt whose answer was lost shows as its own mark
        return release && releasedBy(table, row, owner);
    }

    private static boolean releasedBy(LockTable table, byte[] row, byte[] owner) throws IOException {
        return Arrays.equals(owner, table.get(new Get(row).addColumn(FAMILY, RELEASED_BY)).getValue(FAMILY, RELEASED_BY));
    }

    private static byte[] qualifier(String qualifier) {
        Require.notEmpty(qualifier, "qualifier");
        return Bytes.toBytes(qualifier);
    }


    @Override
    public String toString() {
        return "HBaseRowData[" + store.tableName() + ", family " + Bytes.toString(family) + "]";
    }
}
