package io.github.lockmanager.store.hbase;

import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.store.support.FencingEpoch;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.util.Bytes;

import java.io.IOException;

import static io.github.lockmanager.store.hbase.HBaseTableLayout.COUNTER;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.FAMILY;

/**
 * A row's fencing counter, on the kit's {@link FencingEpoch} rule. Every acquisition adds 1 in its own write. A row's
 * first acquisition (the row is new, or was purged after idling) finds the counter at 1: its token is
 * {@code FencingEpoch.first(t) + 1}, {@code t} being the region server's time of that increment (the counter cell's
 * timestamp), without a write of its own, and every reader of the row computes the same token from the cell
 * ({@link CounterCell#token}); its release writes that token into the counter. A counter found above 1 but not
 * started (the first holder left without a release: crashed, expired, force-released) is moved up by
 * {@code FencingEpoch.first} of the time, in one more conditional write, so that its token is above every token the
 * key had before.
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
        long value = Bytes.toLong(CellUtil.cloneValue(counter));
        if (value == 1 || FencingEpoch.isStarted(value)) {
            return AcquireResult.acquired(withToken(record, CounterCell.token(counter)));
        }
        CheckAndMutateResult moved = table.checkAndMutate(CheckAndMutate.newBuilder(row).ifMatches(mine)
                .build(new Increment(row).addColumn(FAMILY, COUNTER,
                        FencingEpoch.first(counter.getTimestamp()))));
        if (!moved.isSuccess()) {
            // the lease ran out between the two writes: the lock is not ours any more
            return AcquireResult.heldBy(LockRows.anyHolder(table.get(LockRows.fullRow(row))).orElse(null));
        }
        return AcquireResult.acquired(withToken(record, Bytes.toLong(moved.getResult().getValue(FAMILY, COUNTER))));
    }

    private static LockRecord withToken(LockRecord record, long token) {
        return new LockRecord(record.handle(), record.nodeId(), record.threadName(), record.lockTime(),
                record.expirationTime(), record.status(), token, record.mode(), record.permits());
    }
}
