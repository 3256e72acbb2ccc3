package io.github.lockmanager.store.hbase;

import io.github.lockmanager.store.support.FencingEpoch;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.util.Bytes;

/** What a row's counter cell stands for ({@link FencingCounter}): the token of the grant that last moved it. */
final class CounterCell {
    private CounterCell() {
    }

    /** The token the counter cell stands for: a fresh counter (1) stands for its epoch's first token. */
    static long token(Cell counter) {
        long value = Bytes.toLong(CellUtil.cloneValue(counter));
        return value == 1 ? FencingEpoch.first(counter.getTimestamp()) + 1 : value;
    }

    /** Whether the counter cell is a fresh one ({@link #token} computes its token; its release should store it). */
    static boolean isFresh(Cell counter) {
        return Bytes.toLong(CellUtil.cloneValue(counter)) == 1;
    }
}
