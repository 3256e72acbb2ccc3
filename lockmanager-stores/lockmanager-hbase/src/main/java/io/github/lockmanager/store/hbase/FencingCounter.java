package io.github.lockmanager.store.hbase;

import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockRecord;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.util.Bytes;

import java.io.IOException;

import static io.github.lockmanager.store.hbase.HBaseTableLayout.COUNTER;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.FAMILY;

/**
 * A row's fencing counter. Every acquisition adds 1. A row's first acquisition (the row is new, or was purged after
 * idling) finds the counter at 1 and moves it to {@code 1 + 1000 * t}, {@code t} being the region server's time of
 * the write, so that its token is above every token the key had before (see {@link HBaseLockStore}).
 */
final class FencingCounter {
    private FencingCounter() {
    }

    /**
     * The acquisition {@code record}, written with the counter cell {@code counter}, with its final token; moving
     * the counter is conditional on {@code mine}, the acquisition still holding the row.
     */
    static AcquireResult settle(LockTable table, byte[] row, Filter mine, LockRecord record, Cell counter)
            throws IOException {
        if (record.fencingToken() != 1) {
            return AcquireResult.acquired(record);
        }
        CheckAndMutateResult moved = table.checkAndMutate(CheckAndMutate.newBuilder(row).ifMatches(mine)
                .build(new Increment(row).addColumn(FAMILY, COUNTER, 1000 * counter.getTimestamp())));
        if (!moved.isSuccess()) {
            // the lease ran out between the two writes: the lock is not ours any more
            return AcquireResult.heldBy(LockRows.anyHolder(table.get(LockRows.fullRow(row))).orElse(null));
        }
        long token = Bytes.toLong(moved.getResult().getValue(FAMILY, COUNTER));
        return AcquireResult.acquired(new LockRecord(record.handle(), record.nodeId(), record.threadName(),
                record.lockTime(), record.expirationTime(), record.status(), token, record.mode()));
    }
}
