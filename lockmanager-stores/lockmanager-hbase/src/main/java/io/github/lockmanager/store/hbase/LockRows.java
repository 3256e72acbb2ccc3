package io.github.lockmanager.store.hbase;

import io.github.lockmanager.LockStatus;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;

import static io.github.lockmanager.store.hbase.HBaseTableLayout.ABORT;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.COUNTER;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.FAMILY;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.META;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.OWNER;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.SHARED_OWNER;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.slotAbort;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.slotOf;

/** Reads the live holders out of a lock row as HBase returns it: expired cells are already gone. */
final class LockRows {
    private LockRows() {
    }

    static Get fullRow(byte[] row) {
        return new Get(row).addFamily(FAMILY);
    }

    /** Every live holder of the row: its exclusive owner, or the holders in its slots. */
    static List<LockRecord> records(Result result) {
        List<LockRecord> records = new ArrayList<>();
        exclusive(result).ifPresent(records::add);
        if (records.isEmpty() && Arrays.equals(SHARED_OWNER, result.getValue(FAMILY, OWNER))) {
            for (Cell cell : result.rawCells()) {
                int slot = slotOf(CellUtil.cloneQualifier(cell));
                if (slot >= 0 && cell.getValueLength() > 0) {
                    records.add(holder(result, slot, cell));
                }
            }
        }
        return records;
    }

    /** Any live holder of the row. */
    static Optional<LockRecord> anyHolder(Result result) {
        List<LockRecord> records = records(result);
        return records.isEmpty() ? Optional.empty() : Optional.of(records.get(0));
    }

    /** The row's exclusive owner, if its owner cell holds a live acquisition's token. */
    static Optional<LockRecord> exclusive(Result result) {
        Cell owner = result.getColumnLatestCell(FAMILY, OWNER);
        if (owner == null || owner.getValueLength() == 0 || CellUtil.matchingValue(owner, SHARED_OWNER)) {
            return Optional.empty();
        }
        byte[] ownerToken = CellUtil.cloneValue(owner);
        LockMeta meta = LockMeta.decode(result.getValue(FAMILY, META));
        return Optional.of(new LockRecord(new LockHandle(key(result), Bytes.toString(ownerToken)), meta.nodeId(),
                meta.threadName(), Instant.ofEpochMilli(meta.lockTime()),
                Instant.ofEpochMilli(owner.getTimestamp()).plusMillis(meta.leaseMillis()),
                Arrays.equals(ownerToken, result.getValue(FAMILY, ABORT)) ? LockStatus.ABORT : LockStatus.RUNNING,
                counter(result)));
    }

    /**
     * The holder in {@code slot}. Until its first renewal a holder's cell has no fencing token of its own; it shows
     * the row's counter then, which is at least the holder's token and below every later conflicting one's.
     */
    private static LockRecord holder(Result result, int slot, Cell cell) {
        HolderCell holder = HolderCell.decode(CellUtil.cloneValue(cell));
        LockMeta meta = holder.meta();
        boolean aborted = Arrays.equals(Bytes.toBytes(holder.ownerToken()), result.getValue(FAMILY, slotAbort(slot)));
        return new LockRecord(new LockHandle(key(result), holder.ownerToken()), meta.nodeId(), meta.threadName(),
                Instant.ofEpochMilli(meta.lockTime()), Instant.ofEpochMilli(cell.getTimestamp()).plusMillis(meta.leaseMillis()),
                aborted ? LockStatus.ABORT : LockStatus.RUNNING,
                holder.fencingToken() > 0 ? holder.fencingToken() : counter(result), holder.mode(),
                holder.permits());
    }

    /** The slots the row shows taken by a live holder. */
    static BitSet takenSlots(Result result) {
        BitSet taken = new BitSet();
        for (Cell cell : result.rawCells()) {
            int slot = slotOf(CellUtil.cloneQualifier(cell));
            if (slot >= 0 && cell.getValueLength() > 0) {
                taken.set(slot);
            }
        }
        return taken;
    }

    /** The slot whose live value starts with {@code prefix}, or -1. */
    static int slotStartingWith(Result result, byte[] prefix) {
        for (Cell cell : result.rawCells()) {
            int slot = slotOf(CellUtil.cloneQualifier(cell));
            if (slot >= 0 && startsWith(CellUtil.cloneValue(cell), prefix)) {
                return slot;
            }
        }
        return -1;
    }

    static boolean startsWith(byte[] value, byte[] prefix) {
        return value != null && value.length >= prefix.length
                && Arrays.equals(value, 0, prefix.length, prefix, 0, prefix.length);
    }

    private static LockKey key(Result result) {
        return LockKey.parse(HBaseTableLayout.storageKey(result.getRow()));
    }

    private static long counter(Result result) {
        return CounterCell.token(result.getColumnLatestCell(FAMILY, COUNTER));
    }
}
