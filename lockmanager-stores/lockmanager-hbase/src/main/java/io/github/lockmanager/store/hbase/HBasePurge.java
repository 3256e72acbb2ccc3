package io.github.lockmanager.store.hbase;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;

import java.io.IOException;
import java.time.Duration;

import static io.github.lockmanager.store.hbase.HBaseTableLayout.COUNTER;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.FAMILY;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.FREE;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.OWNER;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.SHARED_OWNER;

/** Deletes the HBase store's idle rows. */
final class HBasePurge {
    private HBasePurge() {
    }

    /**
     * Deletes the lock cells of rows without a live lock whose newest lock cell is older than the idle record
     * retention (the whole row, unless {@link HBaseRowData} keeps data in it), each by
     * a delete conditional on the counter it was seen with: a row acquired meanwhile has moved its counter and
     * stays. The delete marker carries the newest cell's timestamp rather than the server's time, so that it masks
     * only what was seen and never the put of an acquisition in the same millisecond.
     */
    static int purge(LockTable table, Duration idleRecordRetention) throws IOException {
        {
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
        }
    }

    private static long newestCell(Result result) {
        long newest = Long.MIN_VALUE;
        for (Cell cell : result.rawCells()) {
            newest = Math.max(newest, cell.getTimestamp());
        }
        return newest;
    }
}
