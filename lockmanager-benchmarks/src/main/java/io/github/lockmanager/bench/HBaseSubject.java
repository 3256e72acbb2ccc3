package io.github.lockmanager.bench;

import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.hbase.HBaseLockStore;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.AsyncTable;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.VersionInfo;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An HBase mini cluster started for the run. The raw baseline is a check-and-mutate put if absent plus a
 * check-and-mutate delete on the store's own table, and the raw scan the store's scan without turning rows into
 * locks.
 */
final class HBaseSubject implements Subject {
    private static final TableName TABLE = TableName.valueOf("bench_locks");
    private static final byte[] FAMILY = Bytes.toBytes("D");
    private static final byte[] OWNER = Bytes.toBytes("o");
    private static final byte[] COUNTER = Bytes.toBytes("c");
    private static final byte[] META = Bytes.toBytes("m");
    /** About the size of the store's details cell (node, thread, lock time, lease). */
    private static final byte[] DETAILS = Bytes.toBytes("bench-node|bench-thread-1|1763900000000|600000");
    private static final long LEASE_MILLIS = 600_000;
    private static final byte[] DLM_MARKER = Bytes.toBytes("LOCKED");
    private final HBaseTestingUtility cluster = new HBaseTestingUtility();
    private final HBaseLockStore store;
    private final Table table;
    private final Set<String> sharedRows = ConcurrentHashMap.newKeySet();
    private final Map<String, Long> proposedTokens = new ConcurrentHashMap<>();
    /** The store's kind of client: HBase's async one, each call waited for by the calling thread. */
    private final AsyncConnection asyncConnection;
    private final AsyncTable<?> asyncTable;

    HBaseSubject() throws Exception {
        cluster.startMiniCluster();
        store = HBaseLockStore.builder(cluster.getConnection()).tableName(TABLE.getNameAsString()).build();
        store.initialize();
        table = cluster.getConnection().getTable(TABLE);
        asyncConnection = ConnectionFactory.createAsyncConnection(cluster.getConfiguration()).get();
        asyncTable = asyncConnection.getTable(TABLE);
    }

    /** The lock table, for work beside the store's. */
    Table table() {
        return table;
    }

    static String version() {
        return "HBase " + VersionInfo.getVersion() + " mini cluster";
    }

    @Override
    public String name() {
        return "HBase";
    }

    @Override
    public boolean serverRunsInThisJvm() {
        return true;
    }

    @Override
    public LockStore store() {
        return store;
    }

    @Override
    public String rawCycleDescription() {
        return "checkAndMutate put if absent + checkAndMutate delete if owner";
    }

    @Override
    public void rawCycle(String key, String owner) throws IOException {
        byte[] row = Bytes.toBytes("raw#" + key);
        byte[] value = Bytes.toBytes(owner);
        table.checkAndMutate(CheckAndMutate.newBuilder(row).ifNotExists(FAMILY, OWNER)
                .build(new Put(row).addColumn(FAMILY, OWNER, value)));
        table.checkAndMutate(CheckAndMutate.newBuilder(row).ifEquals(FAMILY, OWNER, value)
                .build(new Delete(row).addColumns(FAMILY, OWNER)));
    }

    @Override
    public String rawSharedCycleDescription() {
        return "checkAndMutate put of a holder cell with TTL if the row's filter finds no exclusive owner + "
                + "checkAndMutate put empty if the holder's";
    }

    @Override
    public void rawSharedCycle(String key, String owner) throws IOException {
        byte[] row = Bytes.toBytes("rawshared#" + key);
        byte[] holder = Bytes.toBytes("h" + owner);
        byte[] value = Bytes.toBytes(owner);
        if (sharedRows.add(key)) {
            // a filter condition needs a row to look at: the counter cell every lock row has, written once
            table.put(new Put(row).addColumn(FAMILY, COUNTER, Bytes.toBytes(0L)));
        }
        SingleColumnValueFilter noOwner = new SingleColumnValueFilter(FAMILY, OWNER, CompareOperator.EQUAL, new byte[0]);
        table.checkAndMutate(CheckAndMutate.newBuilder(row).ifMatches(noOwner)
                .build(new Put(row).addColumn(FAMILY, holder, value).setTTL(600_000)));
        table.checkAndMutate(CheckAndMutate.newBuilder(row).ifEquals(FAMILY, holder, value)
                .build(new Put(row).addColumn(FAMILY, holder, new byte[0])));
    }

    /*
     * The store's acquire is one RowMutations (the owner cell with the lease as its TTL, the details cell without a
     * TTL, the counter's increment that returns the fencing token); these cycles add its parts one at a time, then
     * send it as the store does, through the async client, and set beside it what the store does not do: the
     * baseline's release by a delete marker, and two single mutations that could return a token.
     */
    @Override
    public Map<String, RawCycle> acquireParts() {
        Map<String, RawCycle> parts = new LinkedHashMap<>();
        parts.put("checkAndMutate Put of the owner cell with a TTL", (key, owner) -> {
            byte[] row = Bytes.toBytes("parts1#" + key);
            byte[] value = Bytes.toBytes(owner);
            takeThenFree(row, value, ifFree(row).build(new Put(row).addColumn(FAMILY, OWNER, value)
                    .setTTL(LEASE_MILLIS)));
        });
        parts.put("the same Put with the details as a second cell", (key, owner) -> {
            byte[] row = Bytes.toBytes("parts2#" + key);
            byte[] value = Bytes.toBytes(owner);
            takeThenFree(row, value, ifFree(row).build(new Put(row).addColumn(FAMILY, OWNER, value)
                    .addColumn(FAMILY, META, DETAILS).setTTL(LEASE_MILLIS)));
        });
        parts.put("the owner Put and a details Put in a RowMutations", (key, owner) -> {
            byte[] row = Bytes.toBytes("parts3#" + key);
            byte[] value = Bytes.toBytes(owner);
            takeThenFree(row, value, ifFree(row).build(ownerAndDetails(row, value)));
        });
        parts.put("that RowMutations with the counter's Increment (the store's acquire), sent through the "
                + "synchronous client, which hands it to the table's thread pool", (key, owner) -> {
            byte[] row = Bytes.toBytes("parts4#" + key);
            byte[] value = Bytes.toBytes(owner);
            takeThenFree(row, value, ifFree(row).build(storesAcquire(row, value)));
        });
        parts.put("the store's acquire and release, sent through the async client as the store sends them",
                (key, owner) -> {
            byte[] row = Bytes.toBytes("parts6#" + key);
            byte[] value = Bytes.toBytes(owner);
            takeThenFreeAsync(row, value, ifFree(row).build(storesAcquire(row, value)));
        });
        parts.put("for comparison: the baseline's Put, sent through the async client", (key, owner) -> {
            byte[] row = Bytes.toBytes("parts8#" + key);
            byte[] value = Bytes.toBytes(owner);
            takeThenFreeAsync(row, value, ifFree(row).build(new Put(row).addColumn(FAMILY, OWNER, value)
                    .setTTL(LEASE_MILLIS)));
        });
        parts.put("for comparison, not the store's: the baseline's Put, freed by a delete marker as figure 2's raw "
                + "pair and DLM free it (the store writes the owner cell empty instead: with classic versions a marker "
                + "would hide the next acquisition's put of the same millisecond)", (key, owner) -> {
            byte[] row = Bytes.toBytes("parts9#" + key);
            byte[] value = Bytes.toBytes(owner);
            requireTaken(row, table.checkAndMutate(ifFree(row).build(new Put(row).addColumn(FAMILY, OWNER, value)
                    .setTTL(LEASE_MILLIS))));
            table.checkAndMutate(CheckAndMutate.newBuilder(row).ifEquals(FAMILY, OWNER, value)
                    .build(new Delete(row).addColumns(FAMILY, OWNER)));
        });
        parts.put("for comparison, not the store's: one Append of owner and details, returning its cells",
                this::appendOwnerAndDetails);
        parts.put("for comparison, not the store's: one Put of owner, details and a token the client proposes, "
                + "under a filter that the row's token is lower", this::putProposedToken);
        return parts;
    }

    /*
     * Not the store's protocol: one mutation that writes both cells and returns them with the timestamps the server
     * gave them, which it makes increase per cell (a fencing token could come from there instead of a counter).
     * Appended to, the details cell must be freed empty as well.
     */
    private void appendOwnerAndDetails(String key, String owner) throws IOException {
        byte[] row = Bytes.toBytes("parts5#" + key);
        byte[] value = Bytes.toBytes(owner);
        takeThenFree(row, value, ifFree(row).build(new Append(row).addColumn(FAMILY, OWNER, value)
                        .addColumn(FAMILY, META, DETAILS).setTTL(LEASE_MILLIS)),
                new Put(row).addColumn(FAMILY, OWNER, new byte[0]).addColumn(FAMILY, META, new byte[0]));
    }

    /*
     * A token the server checks without reading for it: the client proposes one above the last it saw (its clock in
     * microseconds), and the write applies only while the row's token is lower. The filter condition needs the row to
     * exist, as the store's shared holders' does.
     */
    private void putProposedToken(String key, String owner) throws IOException {
        byte[] row = Bytes.toBytes("parts7#" + key);
        byte[] value = Bytes.toBytes(owner);
        if (proposedTokens.putIfAbsent(key, 0L) == null) {
            table.put(new Put(row).addColumn(FAMILY, COUNTER, Bytes.toBytes(0L)));
        }
        long token = Math.max(System.currentTimeMillis() * 1000, proposedTokens.get(key) + 1);
        SingleColumnValueFilter free = new SingleColumnValueFilter(FAMILY, OWNER, CompareOperator.EQUAL, new byte[0]);
        SingleColumnValueFilter lower = new SingleColumnValueFilter(FAMILY, COUNTER, CompareOperator.LESS,
                Bytes.toBytes(token));
        takeThenFree(row, value, CheckAndMutate.newBuilder(row).ifMatches(new FilterList(free, lower))
                .build(new Put(row).addColumn(FAMILY, OWNER, value).addColumn(FAMILY, META, DETAILS)
                        .addColumn(FAMILY, COUNTER, Bytes.toBytes(token)).setTTL(LEASE_MILLIS)));
        proposedTokens.put(key, token);
    }

    private static CheckAndMutate.Builder ifFree(byte[] row) {
        return CheckAndMutate.newBuilder(row).ifEquals(FAMILY, OWNER, new byte[0]);
    }

    /** The store's acquire: the owner and details Puts with the counter's Increment. */
    private static RowMutations storesAcquire(byte[] row, byte[] owner) throws IOException {
        RowMutations all = ownerAndDetails(row, owner);
        all.add(new Increment(row).addColumn(FAMILY, COUNTER, 1));
        return all;
    }

    /** The store's release: the owner cell written empty. */
    private static Put freeOwner(byte[] row) {
        return new Put(row).addColumn(FAMILY, OWNER, new byte[0]);
    }

    private static RowMutations ownerAndDetails(byte[] row, byte[] owner) throws IOException {
        RowMutations mutations = new RowMutations(row);
        mutations.add(new Put(row).addColumn(FAMILY, OWNER, owner).setTTL(LEASE_MILLIS));
        mutations.add(new Put(row).addColumn(FAMILY, META, DETAILS));
        return mutations;
    }

    /** Takes the row with {@code take}, then frees it as the store releases: its owner cell written empty. */
    private void takeThenFree(byte[] row, byte[] owner, CheckAndMutate take) throws IOException {
        takeThenFree(row, owner, take, freeOwner(row));
    }

    private void takeThenFree(byte[] row, byte[] owner, CheckAndMutate take, Put free) throws IOException {
        requireTaken(row, table.checkAndMutate(take));
        table.checkAndMutate(CheckAndMutate.newBuilder(row).ifEquals(FAMILY, OWNER, owner).build(free));
    }

    private void takeThenFreeAsync(byte[] row, byte[] owner, CheckAndMutate take) throws Exception {
        requireTaken(row, asyncTable.checkAndMutate(take).get());
        asyncTable.checkAndMutate(CheckAndMutate.newBuilder(row).ifEquals(FAMILY, OWNER, owner).build(freeOwner(row)))
                .get();
    }

    private static void requireTaken(byte[] row, CheckAndMutateResult taken) {
        if (!taken.isSuccess()) {
            throw new IllegalStateException("row " + Bytes.toStringBinary(row) + " was not free: the cycle before "
                    + "it did not release it");
        }
    }

    /*
     * PhonePe DLM is not published under its documented coordinates; its HBase protocol is replayed here: a put of
     * a constant marker with a cell TTL if the column is absent, and release is an unconditional delete. It checks
     * no owner on release and issues no fencing token.
     */
    @Override
    public String peerCycleDescription() {
        return "PhonePe DLM's protocol: checkAndMutate put with cell TTL if absent + unconditional delete";
    }

    @Override
    public void peerCycle(String key, String owner) throws IOException {
        byte[] row = Bytes.toBytes("dlm#" + key);
        table.checkAndMutate(CheckAndMutate.newBuilder(row).ifNotExists(FAMILY, OWNER)
                .build(new Put(row).addColumn(FAMILY, OWNER, DLM_MARKER).setTTL(600_000)));
        table.delete(new Delete(row).addColumns(FAMILY, OWNER));
    }

    @Override
    public long rawScan() throws IOException {
        SingleColumnValueFilter live = new SingleColumnValueFilter(FAMILY, OWNER, CompareOperator.NOT_EQUAL, new byte[0]);
        live.setFilterIfMissing(true);
        long rows = 0;
        try (ResultScanner scanner = table.getScanner(new Scan().addFamily(FAMILY).setFilter(live).setCaching(500))) {
            for (Result ignored : scanner) {
                rows++;
            }
        }
        return rows;
    }

    @Override
    public int listSize(Settings settings) {
        return settings.hbaseListSize();
    }

    @Override
    public void close() throws Exception {
        table.close();
        asyncConnection.close();
        cluster.shutdownMiniCluster();
    }
}
