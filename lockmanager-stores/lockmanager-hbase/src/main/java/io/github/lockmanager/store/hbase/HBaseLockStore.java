package io.github.lockmanager.store.hbase;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.support.RetryPolicy;
import io.github.lockmanager.store.support.RetryPolicy.Failure;
import io.github.lockmanager.store.support.StoreBuilder;
import io.github.lockmanager.store.hbase.HolderSlots.Held;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableExistsException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import static io.github.lockmanager.store.hbase.HBaseTableLayout.ABORT;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.COUNTER;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.FAMILY;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.FREE;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.META;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.OWNER;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.SHARED_OWNER;
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
 * row's first acquisition sets its counter to {@code 1 + 1000 * t}, {@code t} being the region server's time in
 * ms; every later one adds 1. Fewer than 1000 acquisitions of one key fit in a millisecond, so every token of a
 * row stays below {@code 1000 * (its last acquisition + 1 ms)}, and a row created after the purge starts above
 * all of them, as long as the region servers' clocks agree within the retention.
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
    private final Duration operationTimeout;
    private final Duration idleRecordRetention;
    private final RetryPolicy retries;
    private final SharedHolders holders = new SharedHolders();
    /** The calls' connection ({@link LockTable} says why async): opened at the first call, again if that failed. */
    private final AtomicReference<CompletableFuture<AsyncConnection>> asyncConnection = new AtomicReference<>();
    private volatile boolean closed;

    private HBaseLockStore(Builder builder) {
        this.connection = builder.connection;
        this.tableName = builder.tableName;
        this.closeConnection = builder.closeConnection;
        this.operationTimeout = builder.getOperationTimeout();
        this.idleRecordRetention = builder.getIdleRecordRetention();
        this.retries = builder.getRetries();
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
        try (Admin admin = connection.getAdmin()) {
            boolean exists;
            try {
                exists = admin.tableExists(tableName);
            } catch (IOException e) {
                throw unreachable(e);
            }
            if (!exists) {
                try {
                    admin.createTable(HBaseTableLayout.descriptor(tableName), HBaseTableLayout.splitKeys());
                    log.info("Created lock table {} with {} regions", tableName, HBaseTableLayout.REGIONS);
                    return;
                } catch (TableExistsException e) {
                    log.debug("Lock table {} was created by another node meanwhile", tableName);
                }
            }
            List<String> correctness = new ArrayList<>();
            List<String> tuning = new ArrayList<>();
            HBaseTableLayout.compare(admin.getDescriptor(tableName), admin.getRegions(tableName).size(), correctness,
                    tuning);
            if (!correctness.isEmpty()) {
                throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "lock table " + tableName
                        + " exists with a layout the store cannot use: " + String.join("; ", correctness)
                        + ". Alter the column family or choose another table name.");
            }
            if (!tuning.isEmpty()) {
                log.warn("Lock table {} differs from the recommended layout: {}. Locks work; alter it when convenient.",
                        tableName, String.join("; ", tuning));
            }
        } catch (IOException e) {
            if (RetryPolicy.isInterruption(e)) {
                Thread.currentThread().interrupt();
                throw new LockManagerException(ErrorCode.CONNECTION_ERROR, "creating lock table " + tableName
                        + " was interrupted", e);
            }
            throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "could not create or inspect lock table "
                    + tableName + ": " + e, e);
        }
    }

    private LockManagerException unreachable(IOException e) {
        if (RetryPolicy.isInterruption(e)) {
            Thread.currentThread().interrupt();
        }
        String quorum = connection.getConfiguration().get("hbase.zookeeper.quorum") + " (client port "
                + connection.getConfiguration().get("hbase.zookeeper.property.clientPort", "2181") + ")";
        return new LockManagerException(ErrorCode.CONNECTION_ERROR, "could not reach the HBase cluster of ZooKeeper "
                + "quorum " + quorum + " to look up lock table " + tableName + ": " + e, e);
    }

    @Override
    public AcquireResult acquire(LockRequest request, Duration lease) throws LockManagerException {
        LockHandle handle = request.handle();
        long leaseMillis = lease.toMillis();
        if (request.mode() != LockMode.EXCLUSIVE) {
            return call("acquire lock '" + handle.key().name() + "' " + request.mode(),
                    table -> holders.acquire(table, request, leaseMillis));
        }
        byte[] row = rowKey(handle.key().storageKey());
        byte[] owner = Bytes.toBytes(handle.ownerToken());
        return call("acquire lock '" + handle.key().name() + "'", table -> {
            long lockTime = System.currentTimeMillis();
            RowMutations mutations = new RowMutations(row, 3);
            mutations.add(leasedOwner(row, owner, leaseMillis));
            mutations.add(new Put(row).addColumn(FAMILY, META,
                    LockMeta.encode(request.nodeId(), request.threadName(), lockTime, leaseMillis)));
            mutations.add(new Increment(row).addColumn(FAMILY, COUNTER, 1));
            Instant locked = Instant.ofEpochMilli(lockTime);
            LockRecord granted = new LockRecord(handle, request.nodeId(), request.threadName(), locked,
                    locked.plusMillis(leaseMillis), LockStatus.RUNNING, 0);
            LockHandle predecessor = request.predecessor();
            // a hand-off: the predecessor's owner cell, while its TTL lasts; once it has expired the key is free
            AcquireResult result = predecessor == null ? null : takeIf(table, row, CheckAndMutate.newBuilder(row)
                    .ifEquals(FAMILY, OWNER, Bytes.toBytes(predecessor.ownerToken())).build(mutations), granted);
            if (result != null) {
                return result;
            }
            result = takeIf(table, row, CheckAndMutate.newBuilder(row).ifEquals(FAMILY, OWNER, FREE)
                    .build(mutations), granted);
            if (result != null) {
                return result;
            }
            Result read = table.get(LockRows.fullRow(row));
            if (Arrays.equals(SHARED_OWNER, read.getValue(FAMILY, OWNER)) && LockRows.records(read).isEmpty()) {
                // the holders in the slots are gone without the last one freeing the owner cell: it crashed
                result = takeIf(table, row, CheckAndMutate.newBuilder(row)
                        .ifMatches(HolderFilters.mayHold(LockMode.EXCLUSIVE, -1, null)).build(mutations), granted);
                if (result != null) {
                    return result;
                }
                read = table.get(LockRows.fullRow(row));
            }
            // refused: name the holder, which may be this very acquisition when an earlier attempt that timed
            // out applied after all
            return ownOr(table, row, read, handle);
        });
    }

    /**
     * The acquisition {@code granted} if {@code write} applies (its token from the counter the write moved), or if
     * it times out and the row shows it applied; {@code null} if refused.
     */
    private static AcquireResult takeIf(LockTable table, byte[] row, CheckAndMutate write, LockRecord granted)
            throws IOException {
        CheckAndMutateResult written;
        try {
            written = table.checkAndMutate(write);
        } catch (IOException e) {
            // the write may have applied: only the row can tell
            Result read = table.get(LockRows.fullRow(row));
            Optional<LockRecord> current = LockRows.exclusive(read);
            if (current.isPresent() && current.get().handle().equals(granted.handle())) {
                return settle(table, row, current.get(), read.getColumnLatestCell(FAMILY, COUNTER));
            }
            throw e;
        }
        Cell counter = written.getResult() == null ? null : written.getResult().getColumnLatestCell(FAMILY, COUNTER);
        if (!written.isSuccess() || counter == null) {
            return null;
        }
        return settle(table, row, new LockRecord(granted.handle(), granted.nodeId(), granted.threadName(),
                granted.lockTime(), granted.expirationTime(), LockStatus.RUNNING,
                Bytes.toLong(CellUtil.cloneValue(counter))), counter);
    }

    /** This acquisition if {@code read} shows it as the row's owner, else a refusal naming a holder. */
    private static AcquireResult ownOr(LockTable table, byte[] row, Result read, LockHandle handle) throws IOException {
        Optional<LockRecord> current = LockRows.exclusive(read);
        if (current.isPresent() && current.get().handle().equals(handle)) {
            return settle(table, row, current.get(), read.getColumnLatestCell(FAMILY, COUNTER));
        }
        return AcquireResult.heldBy(current.or(() -> LockRows.anyHolder(read)).orElse(null));
    }

    private static AcquireResult settle(LockTable table, byte[] row, LockRecord record, Cell counter)
            throws IOException {
        return FencingCounter.settle(table, row,
                HolderFilters.is(OWNER, Bytes.toBytes(record.handle().ownerToken())), record, counter);
    }

    @Override
    public Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) throws LockManagerException {
        long leaseMillis = lease.toMillis();
        return call("renew " + handles.size() + " locks", table -> {
            List<Row> actions = new ArrayList<>(handles.size() * 2);
            List<Held> slotted = new ArrayList<>(handles.size());
            for (LockHandle handle : handles) {
                Held held = holders.of(handle);
                slotted.add(held);
                if (held != null) {
                    SharedHolders.addRenewal(held, leaseMillis, actions);
                    continue;
                }
                byte[] row = rowKey(handle.key().storageKey());
                byte[] owner = Bytes.toBytes(handle.ownerToken());
                // the lease in the meta cell is the acquisition's, which renews with the same lease
                actions.add(CheckAndMutate.newBuilder(row).ifEquals(FAMILY, OWNER, owner)
                        .build(leasedOwner(row, owner, leaseMillis)));
                actions.add(new Get(row).addColumn(FAMILY, ABORT));
            }
            List<Object> results = table.batch(actions);
            Map<LockHandle, HoldState> answers = new LinkedHashMap<>();
            for (int i = 0; i < handles.size(); i++) {
                LockHandle handle = handles.get(i);
                if (slotted.get(i) != null) {
                    answers.put(handle, holders.renewed(handle, slotted.get(i),
                            (CheckAndMutateResult) results.get(2 * i), (Result) results.get(2 * i + 1)));
                    continue;
                }
                boolean renewed = ((CheckAndMutateResult) results.get(2 * i)).isSuccess();
                byte[] abortFor = ((Result) results.get(2 * i + 1)).getValue(FAMILY, ABORT);
                answers.put(handle, HoldState.of(renewed, Arrays.equals(abortFor, Bytes.toBytes(handle.ownerToken()))));
            }
            return answers;
        });
    }

    @Override
    public Map<LockHandle, HoldState> check(List<LockHandle> handles) throws LockManagerException {
        return call("check " + handles.size() + " locks", table -> {
            List<Get> gets = new ArrayList<>(handles.size());
            List<Held> slotted = new ArrayList<>(handles.size());
            for (LockHandle handle : handles) {
                Held held = holders.of(handle);
                slotted.add(held);
                gets.add(held != null ? SharedHolders.checkOf(held)
                        : new Get(rowKey(handle.key().storageKey())).addColumn(FAMILY, OWNER).addColumn(FAMILY, ABORT));
            }
            List<Result> results = table.get(gets);
            Map<LockHandle, HoldState> answers = new LinkedHashMap<>();
            for (int i = 0; i < handles.size(); i++) {
                if (slotted.get(i) != null) {
                    answers.put(handles.get(i), holders.checked(handles.get(i), slotted.get(i), results.get(i)));
                    continue;
                }
                byte[] owner = Bytes.toBytes(handles.get(i).ownerToken());
                Result result = results.get(i);
                answers.put(handles.get(i), HoldState.of(Arrays.equals(owner, result.getValue(FAMILY, OWNER)),
                        Arrays.equals(owner, result.getValue(FAMILY, ABORT))));
            }
            return answers;
        });
    }

    @Override
    public boolean release(LockHandle handle) throws LockManagerException {
        Held held = holders.of(handle);
        if (held != null) {
            return call("release lock '" + handle.key().name() + "' " + held.cell().mode(),
                    table -> holders.release(table, handle, held));
        }
        byte[] row = rowKey(handle.key().storageKey());
        byte[] owner = Bytes.toBytes(handle.ownerToken());
        return call("release lock '" + handle.key().name() + "'", table -> {
            // an abort mark counts only while it names the owner, so it needs no write of its own
            Put free = new Put(row).addColumn(FAMILY, OWNER, FREE);
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
        return call("read lock '" + key.name() + "'", table -> LockRows.anyHolder(table.get(LockRows.fullRow(rowKey(key.storageKey())))));
    }

    @Override
    public List<LockRecord> list() throws LockManagerException {
        return call("list locks", table -> {
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
        return call("abort lock '" + key.name() + "'", table -> {
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
     * Deletes the lock cells of rows without a live lock whose newest lock cell is older than the idle record
     * retention (the whole row, unless {@link HBaseRowData} keeps data in it), each by
     * a delete conditional on the counter it was seen with: a row acquired meanwhile has moved its counter and
     * stays. The delete marker carries the newest cell's timestamp rather than the server's time, so that it masks
     * only what was seen and never the put of an acquisition in the same millisecond.
     */
    @Override
    public int purgeIdleRecords() throws LockManagerException {
        return call("purge idle rows", table -> {
            long cutoff = System.currentTimeMillis() - idleRecordRetention.toMillis();
            // owner tokens are never empty: only rows without a live exclusive owner pass
            SingleColumnValueFilter free = new SingleColumnValueFilter(FAMILY, OWNER, CompareOperator.EQUAL, FREE);
            free.setFilterIfMissing(false);
            FilterList unowned = new FilterList(FilterList.Operator.MUST_PASS_ONE, free,
                    new SingleColumnValueFilter(FAMILY, OWNER, CompareOperator.EQUAL, SHARED_OWNER));
            int purged = 0;
            try (ResultScanner scanner = table.scanner(new Scan().addFamily(FAMILY).setFilter(unowned).setCaching(500))) {
                for (Result result : scanner) {
                    byte[] counter = result.getValue(FAMILY, COUNTER);
                    long newest = newestCell(result);
                    if (counter == null || newest >= cutoff || !LockRows.records(result).isEmpty()) {
                        continue;
                    }
                    // the lock's family only: data that HBaseRowData keeps in the row is the caller's
                    if (table.checkAndMutate(CheckAndMutate.newBuilder(result.getRow()).ifEquals(FAMILY, COUNTER, counter)
                            .build(new Delete(result.getRow()).addFamily(FAMILY, newest))).isSuccess()) {
                        purged++;
                    }
                }
            }
            return purged;
        });
    }

    private static long newestCell(Result result) {
        long newest = Long.MIN_VALUE;
        for (Cell cell : result.rawCells()) {
            newest = Math.max(newest, cell.getTimestamp());
        }
        return newest;
    }

    @Override
    public void close() {
        closed = true;
        CompletableFuture<AsyncConnection> opened = asyncConnection.getAndSet(null);
        if (opened != null) {
            opened.thenAccept(HBaseLockStore::close);
        }
        if (closeConnection) {
            try {
                connection.close();
            } catch (IOException e) {
                log.warn("Closing the HBase connection of the lock store failed: {}", e.toString());
            }
        }
    }

    TableName tableName() {
        return tableName;
    }

    Connection connection() {
        return connection;
    }

    HolderSlots holderSlots() {
        return holders.slots();
    }

    /** A hand-off is the acquisition's write, checked against the predecessor's owner cell instead of a free one. */
    @Override
    public boolean supportsHandOff() {
        return true;
    }

    /** Holders of every mode, exclusive ones in the owner cell, the others in slots ({@link SharedHolders}). */
    @Override
    public boolean supportsModes() {
        return true;
    }

    @Override
    public String toString() {
        return "HBaseLockStore[" + tableName + "]";
    }

    /**
     * The owner cell with the lease as its TTL, in a Put of its own: a Put's TTL applies to every cell in it, and
     * the other cells of the lock must not expire while renewals keep the owner cell alive.
     */
    private static Put leasedOwner(byte[] row, byte[] owner, long leaseMillis) {
        return new Put(row).addColumn(FAMILY, OWNER, owner).setTTL(leaseMillis);
    }

    @FunctionalInterface
    interface TableCall<T> {
        T run(LockTable table) throws IOException;
    }

    /** Runs {@code body} on the table, retried as the store's policy says, within the operation timeout. */
    <T> T call(String what, TableCall<T> body) throws LockManagerException {
        return retries.call(what + " in HBase table " + tableName, operationTimeout, FAILURES, remaining -> {
            return body.run(LockTable.of(asyncConnection(), tableName, remaining));
        });
    }

    private CompletableFuture<AsyncConnection> asyncConnection() throws DoNotRetryIOException {
        while (true) {
            CompletableFuture<AsyncConnection> current = asyncConnection.get();
            if (closed) {
                throw new DoNotRetryIOException(this + " is closed");
            }
            if (current != null && !current.isCompletedExceptionally()) {
                return current;
            }
            // the same configuration and, as the connection of most applications, the current user
            CompletableFuture<AsyncConnection> opening = ConnectionFactory.createAsyncConnection(
                    connection.getConfiguration());
            if (asyncConnection.compareAndSet(current, opening) && !closed) {
                return opening;
            }
            // another call opened one first, or the store closed meanwhile
            asyncConnection.compareAndSet(opening, null);
            opening.thenAccept(HBaseLockStore::close);
        }
    }

    private static void close(AsyncConnection opened) {
        try {
            opened.close();
        } catch (IOException e) {
            log.warn("Closing the HBase async connection of the lock store failed: {}", e.toString());
        }
    }

    private static final RetryPolicy.Classifier FAILURES = e -> e instanceof IOException
            && !(e instanceof DoNotRetryIOException) ? Failure.TRANSIENT : Failure.PERMANENT;
}
