package io.github.lockmanager.bench;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.store.hbase.HBaseLockStore;
import io.github.lockmanager.store.hbase.HBaseRowData;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Figure 13 on HBase: one read-modify-write of a value under a lock, the value kept in the lock's own row
 * ({@link HBaseRowData}: read, then the write with the release, both checked against the owner cell) against the
 * same work beside an unguarded lock (lock, get, put, unlock).
 */
final class RowDataBench {
    private static final byte[] DATA = Bytes.toBytes("data");
    private static final byte[] VALUE = Bytes.toBytes("n");

    private RowDataBench() {
    }

    static void run(HBaseSubject subject, Settings settings, Report report) throws Exception {
        HBaseLockStore store = (HBaseLockStore) subject.store();
        HBaseRowData data = new HBaseRowData(store, "data");
        data.initialize();
        Table table = subject.table();
        byte[] plainRow = Bytes.toBytes("plain-data");
        try (LockManager manager = LockManagerBuilder.newBuilder().store(store).clientId("bench-rowdata")
                .nodeId("rowdata").lease(Duration.ofMinutes(10)).shutdownTimeout(Duration.ofSeconds(1)).build()) {
            Rounds.Cycle unguarded = () -> {
                try (LockResource held = manager.lock("plain")) {
                    byte[] value = table.get(new Get(plainRow).addColumn(DATA, VALUE)).getValue(DATA, VALUE);
                    long next = (value == null ? 0 : Bytes.toLong(value)) + 1;
                    table.put(new Put(plainRow).addColumn(DATA, VALUE, Bytes.toBytes(next)));
                }
            };
            Rounds.Cycle inRow = () -> {
                LockResource held = manager.lock("in-row");
                byte[] value = data.read(held).get("n");
                long next = (value == null ? 0 : Bytes.toLong(value)) + 1;
                data.releaseWithChanges(held, Map.of("n", Bytes.toBytes(next)), List.of());
            };
            long[] nanos = Rounds.alternate(settings, unguarded, inRow);
            report.add("13. data in the lock's row, read + write + release", subject.name(),
                    Report.micros(nanos[1] / (double) Rounds.measured(settings)),
                    Report.micros(nanos[0] / (double) Rounds.measured(settings)), (double) nanos[1] / nanos[0],
                    "lock, HBaseRowData.read, releaseWithChanges (both checked against the owner cell): 3 round trips; "
                            + "baseline: lock, get, put, unlock of a row of its own, 4");
        }
    }
}
