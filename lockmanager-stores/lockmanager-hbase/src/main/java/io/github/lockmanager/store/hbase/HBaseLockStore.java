package io.github.lockmanager.store.hbase;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.support.HolderRegistry;
import io.github.lockmanager.store.support.RetryPolicy;
import io.github.lockmanager.store.support.StoreBuilder;
import io.github.lockmanager.store.hbase.HolderSlots.Held;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.github.lockmanager.store.hbase.HBaseTableLayout.ABORT;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.COUNTER;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.FAMILY;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.FREE;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.OWNER;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.rowKey;

/**
 * Lock records in an Apache HBase table, with HBase's atomic check-and-mutate as the only arbiter. The layout
 * is {@link HBaseTableLayout}'s. Leases are cell TTLs measured from the timestamps the region server assigns
 * (the store never sets a timestamp), so they do not depend on any node's clock.
 *
 * <p>Round trips: acquire 1 (a conditional put that also moves the fencing counter), 2 for a key whose row is new
 * (the counter is then moved above every token the key can have had, see below); renew and check 1 client call
 * per batch (HBase groups it by region server); release 1 (a conditional put of an empty owner: a put, unlike a
 * delete marker, can never hide the next acquisition's put of the same millisecond); abort 2 (read the owner,
 * then mark conditionally); isLocked 1; getLocks one scan over the 256 regions; {@link #purgeIdleRecords()} one
 * scan and a conditional delete per idle row. Holders in the other modes ({@link SharedHolders}): join 1 (4 for a
 * key without a row), release 1 (2 for the last holder of this store leaving beside holders of other nodes).
 *
 * <p>Storage: a row stays after its lock is released, so that its counter keeps growing, until it has been
 * idle for the {@linkplain Builder#idleRecordRetention retention}; then {@link #purgeIdleRecords()} deletes it. A
 * row's tokens follow the kit's {@link io.github.lockmanager.store.support.FencingEpoch} rule on the region server's
 * clock (its first acquisition starts the counter there; every later one adds 1), so a row created after the purge
 * starts above every token of the old one, as long as the region servers' clocks agree within the retention.
 *
 * <p>The store uses the {@link Connection} it is given for {@link #initialize()}, and closes it on {@link #close()}
 * only when the builder was told so with {@link Builder#closeConnectionOnClose(boolean)}. Its lock calls go through
 * an {@link AsyncConnection} of its own, opened from that connection's configuration at the first call and closed on
 * {@link #close()}: the calling thread only waits for each, so an interrupt always reaches it ({@link LockTable}).
 * Thread-safe.
 */
public final class HBaseLockStore implements LockStore {
    private static final Logger log = LoggerFactory.getLogger(HBaseLockStore.class);

    private final Connection connection;
    private final TableName tableName;
    private final boolean closeConnection;
    private final Duration idleRecordRetention;
    private final HBaseAccess access;
    private final SharedHolders holders = new SharedHolders();
    private final HBaseBatches batches = new HBaseBatches(holders);

    /** Exclusive grants on a fresh counter, with the token their release stores in it ({@link FencingCounter}). */
    private final HolderRegistry<Long> freshTokens = new HolderRegistry<>();
    private final ExclusiveRows exclusive = new ExclusiveRows(freshTokens);

    private HBaseLockStore(Builder builder) {
        this.connection = builder.connection;
        this.tableName = builder.tableName;
        this.closeConnection = builder.closeConnection;
        this.idleRecordRetention = builder.getIdleRecordRetention();
        this.access = new HBaseAccess(connection, tableName, builder.getOperationTimeout(), builder.getRetries());
    }

    public static Builder builder(Connection connection) {
        return new Builder(connection);
    }

    /**
     * Settings of an {@link HBaseLockStore}; each setter checks its value and names it when refusing it. The
     * operation timeout (50 ms at the least) bounds HBase's own retries too; the idle record retention is how long
     * a row without a live lock stays before {@link HBaseLockStore#purgeIdleRecords()} deletes it, so keep it well
     * above the clock differences of the region servers; retries default to 3 attempts, backoff 50 ms doubling to
     * 1 s.
     */
    public static final class Builder extends StoreBuilder<Builder> {
        private final Connection connection;
        private TableName tableName = TableName.valueOf("lockmanager_locks");
        private boolean closeConnection;

        private Builder(Connection connection) {
            super(Duration.ofMillis(50), new RetryPolicy(3, Duration.ofMillis(50), Duration.ofSeconds(1)));
            this.connection = Require.notNull(connection, "connection");
        }

        /** The lock table, {@code [namespace:]name}; default {@code lockmanager_locks}. */
        public Builder tableName(String tableName) {
            Require.notEmpty(tableName, "tableName");
            try {
                this.tableName = TableName.valueOf(tableName);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("tableName '" + tableName + "' is not a valid HBase table name: "
                        + e.getMessage(), e);
            }
            return this;
        }

        /** Whether {@link HBaseLockStore#close()} closes the connection. Default {@code false}: it is yours. */
        public Builder closeConnectionOnClose(boolean closeConnection) {
            this.closeConnection = closeConnection;
            return this;
        }

        public HBaseLockStore build() {
            return new HBaseLockStore(this);
        }
    }

    /**
     * Creates the table when absent, or checks the layout of an existing one.
     *
     * @throws LockManagerException {@code CONNECTION_ERROR}, naming the ZooKeeper quorum, if the cluster cannot
     *                              be reached; {@code TABLE_CREATION_ERROR} if the table cannot be created or has a
     *                              layout the store cannot use
     */
    @Override
    public void initialize() throws LockManagerException {
        new HBaseSchema(connection, tableName).createOrCheck();
    }

    @Override
    public AcquireResult acquire(LockRequest request, Duration lease) throws LockManagerException {
        LockHandle handle = request.handle();
        long leaseMillis = lease.toMillis();
        if (request.mode() != LockMode.EXCLUSIVE) {
            return access.call("acquire lock '" + handle.key().name() + "' " + request.mode(),
                    table -> holders.acquire(table, request, leaseMillis));
        }
        return access.call("acquire lock '" + handle.key().name() + "'",
                table -> exclusive.acquire(table, request, leaseMillis));
    }

    @Override
    public Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) throws LockManagerException {
        return freshTokens.forgetLost(access.call("renew " + handles.size() + " locks",
                table -> batches.renew(table, handles, lease)));
    }

    @Override
    public Map<LockHandle, HoldState> check(List<LockHandle> handles) throws LockManagerException {
        return freshTokens.forgetLost(access.call("check " + handles.size() + " locks",
                table -> batches.check(table, handles)));
    }

    @Override
    public boolean release(LockHandle handle) throws LockManagerException {
        Held held = holders.of(handle);
        if (held != null) {
            return access.call("release lock '" + handle.key().name() + "' " + held.cell().mode(),
                    table -> holders.release(table, handle, held));
        }
        byte[] row = rowKey(handle.key().storageKey());
        byte[] owner = Bytes.toBytes(handle.ownerToken());
        Long freshToken = freshTokens.forget(handle);
        return access.call("release lock '" + handle.key().name() + "'", table -> {
            // an abort mark counts only while it names the owner, so it needs no write of its own
            Put free = new Put(row).addColumn(FAMILY, OWNER, FREE);
            if (freshToken != null) {
                // the first holder of a fresh counter leaves its token there, so the next grant needs no second write
                free.addColumn(FAMILY, COUNTER, Bytes.toBytes(freshToken));
            }
            try {
                // not the owner: possibly a holder in another mode that another node took (a force-release)
                return table.checkAndMutate(CheckAndMutate.newBuilder(row).ifEquals(FAMILY, OWNER, owner).build(free))
                        .isSuccess() || SharedHolders.releaseForeign(table, handle, row);
            } catch (IOException e) {
                // the write may have applied: if the owner cell is no longer ours, the lock is released either way
                if (!Arrays.equals(owner, table.get(new Get(row).addColumn(FAMILY, OWNER)).getValue(FAMILY, OWNER))) {
                    return true;
                }
                throw e;
            }
        });
    }

    @Override
    public Optional<LockRecord> read(LockKey key) throws LockManagerException {
        return access.call("read lock '" + key.name() + "'", table -> LockRows.anyHolder(table.get(LockRows.fullRow(rowKey(key.storageKey())))));
    }

    @Override
    public List<LockRecord> list() throws LockManagerException {
        return access.call("list locks", table -> {
            SingleColumnValueFilter locked = new SingleColumnValueFilter(FAMILY, OWNER, CompareOperator.NOT_EQUAL, FREE);
            locked.setFilterIfMissing(true);
            List<LockRecord> records = new ArrayList<>();
            try (ResultScanner scanner = table.scanner(new Scan().addFamily(FAMILY).setFilter(locked).setCaching(500))) {
                for (Result result : scanner) {
                    records.addAll(LockRows.records(result));
                }
            }
            return records;
        });
    }

    @Override
    public boolean markAbort(LockKey key) throws LockManagerException {
        byte[] row = rowKey(key.storageKey());
        return access.call("abort lock '" + key.name() + "'", table -> {
            // the owner may change between the read and the write; a few rounds settle it
            for (int round = 0; round < 3; round++) {
                Result read = table.get(LockRows.fullRow(row));
                Optional<LockRecord> owner = LockRows.exclusive(read);
                if (owner.isEmpty()) {
                    return SharedHolders.markAbort(table, read);
                }
                byte[] token = Bytes.toBytes(owner.get().handle().ownerToken());
                if (table.checkAndMutate(CheckAndMutate.newBuilder(row).ifEquals(FAMILY, OWNER, token)
                        .build(new Put(row).addColumn(FAMILY, ABORT, token))).isSuccess()) {
                    return true;
                }
            }
            return false;
        });
    }

    /**
     * Deletes the rows without a live lock that have been idle for the retention ({@link HBasePurge}), each by a
     * delete conditional on the counter it was seen with.
     */
    @Override
    public int purgeIdleRecords() throws LockManagerException {
        return access.call("purge idle rows", table -> HBasePurge.purge(table, idleRecordRetention));
    }

    @Override
    public void close() {
        access.close();
        if (closeConnection) {
            try {
                connection.close();
            } catch (IOException e) {
                log.warn("Closing the HBase connection of the lock store failed: {}", e.toString());
            }
        }
    }

    /** How many grants on a fresh counter this store keeps a token for (their release stores it); for tests. */
    int freshTokensKept() {
        return freshTokens.size();
    }

    /** The means the store's parts share ({@link HBaseRowData}). */
    HBaseAccess access() {
        return access;
    }

    HolderSlots holderSlots() {
        return holders.slots();
    }

    /** A hand-off is the acquisition's write, checked against the predecessor's owner cell instead of a free one. */
    /** Holders of every mode, exclusive ones in the owner cell, the others in slots ({@link SharedHolders}). */
    @Override
    public String toString() {
        return access.toString();
    }


}
