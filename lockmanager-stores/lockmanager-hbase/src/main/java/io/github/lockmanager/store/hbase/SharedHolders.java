package io.github.lockmanager.store.hbase;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.store.hbase.HolderSlots.Held;
import io.github.lockmanager.store.support.Admission;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.util.Bytes;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static io.github.lockmanager.store.hbase.HBaseTableLayout.COUNTER;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.FAMILY;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.FREE;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.OWNER;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.SHARED_OWNER;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.SLOTS;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.holder;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.rowKey;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.slotAbort;

/**
 * The holders of keys taken in a mode other than exclusive, each in a slot of the key's row ({@link HBaseTableLayout})
 * with its own cell TTL. Joining is one check-and-mutate whose filter ({@link HolderFilters#mayHold}) sees the whole
 * row: no live exclusive owner, no live holder whose mode conflicts, the slot free; it writes the slot, sets the owner
 * cell to {@link HBaseTableLayout#SHARED_OWNER} and moves the counter. The exclusive acquisition's condition (owner
 * cell free) then fails while any slot may be taken, so it needs no change; the last holder to leave frees the owner
 * cell, and an exclusive acquisition that finds only the mark with no live holder behind it (the last one crashed)
 * takes the row under the same kind of filter.
 */
final class SharedHolders {
    /** How many slots a join tries, each after reading the row, before the call fails as transient. */
    private static final int ROUNDS = 5;
    /**
     * Nodes start looking for a free slot at different places of this range, so that a few nodes seldom try the
     * same slot; a row keeps at most this many slot columns more than it ever had holders at once.
     */
    private static final int START_SPREAD = 16;
    /** How often a permit taker finds the free permits claimed by this store's other takers before it gives up. */
    private static final int BUSY_ROUNDS = 200;

    private final HolderSlots slots = new HolderSlots();

    /** What this store keeps of its slots: for tests that it keeps nothing its holders no longer need. */
    HolderSlots slots() {
        return slots;
    }

    /** The slot of {@code handle} if it is a holder of this store in a slot, {@code null} for an exclusive owner. */
    Held of(LockHandle handle) {
        return slots.of(handle);
    }

    /**
     * One round trip when the guessed slot is free and nothing conflicts; on a refusal, a read tells a conflict
     * (answered with the holder) from a taken slot or a new row (tried again).
     */
    AcquireResult acquire(LockTable table, LockRequest request, long leaseMillis) throws IOException {
        LockHandle handle = request.handle();
        String key = handle.key().storageKey();
        byte[] row = rowKey(key);
        LockMode mode = request.mode();
        long lockTime = System.currentTimeMillis();
        int permits = request.permits();
        HolderCell cell = new HolderCell(mode, permits, handle.ownerToken(), 0,
                new LockMeta(request.nodeId(), request.threadName(), lockTime, leaseMillis));
        byte[] prefix = HolderCell.prefix(mode, permits, handle.ownerToken());
        // a permit holder sits in one of the first n slots: the slots' own rule (a slot is taken or free) then keeps
        // the key at n permit holders, which a filter, blind to counts, could not
        int limit = mode == LockMode.PERMIT ? permits : SLOTS;
        int from = Math.floorMod(request.nodeId().hashCode(), Math.min(START_SPREAD, limit));
        BitSet seen = new BitSet();
        boolean rowExists = true;
        int busy = 0;
        for (int round = 0; round < ROUNDS; round++) {
            int slot = slots.claim(key, from, limit, seen);
            if (slot < 0 && mode == LockMode.PERMIT) {
                Map<LockHandle, Held> before = slots.holdersOf(handle.key());
                Result read = table.get(LockRows.fullRow(row));
                AcquireResult refused = refusal(request, read);
                if (refused != null) {
                    return refused;
                }
                seen = LockRows.takenSlots(read);
                round--;
                // a free slot is claimed by a holder of this store that is gone, or by another taker under way here
                if (!slots.forgetVacated(before, seen, limit)) {
                    if (++busy > BUSY_ROUNDS) {
                        throw new IOException("the permits of the key stay claimed by this store's other takers");
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
                continue;
            }
            if (slot < 0) {
                throw new IOException("every holder slot of the row is taken");
            }
            AcquireResult result = null;
            try {
                RowMutations join = new RowMutations(row, 3);
                join.add(new Put(row).addColumn(FAMILY, holder(slot), cell.encode()).setTTL(leaseMillis));
                join.add(new Put(row).addColumn(FAMILY, OWNER, SHARED_OWNER));
                join.add(new Increment(row).addColumn(FAMILY, COUNTER, 1));
                CheckAndMutate.Builder when = CheckAndMutate.newBuilder(row);
                CheckAndMutate write = rowExists ? when.ifMatches(HolderFilters.mayHold(mode, permits, slot, prefix)).build(join)
                        : when.ifNotExists(FAMILY, COUNTER).build(join);
                CheckAndMutateResult written;
                try {
                    written = table.checkAndMutate(write);
                } catch (IOException e) {
                    // the write may have applied: only the row can tell
                    result = ownIn(table, table.get(LockRows.fullRow(row)), request, cell, prefix, slot);
                    if (result != null) {
                        return result;
                    }
                    throw e;
                }
                Cell counter = written.getResult() == null ? null
                        : written.getResult().getColumnLatestCell(FAMILY, COUNTER);
                if (written.isSuccess() && counter != null) {
                    result = granted(table, request, cell, prefix, slot, counter);
                    return result;
                }
                Result read = table.get(LockRows.fullRow(row));
                // an earlier call that timed out may have applied after all
                result = ownIn(table, read, request, cell, prefix, slot);
                if (result != null) {
                    return result;
                }
                result = refusal(request, read);
                if (result != null) {
                    return result;
                }
                rowExists = read.getValue(FAMILY, COUNTER) != null;
                seen = LockRows.takenSlots(read);
            } finally {
                if (result == null || !result.isAcquired()) {
                    slots.unclaim(key, slot);
                }
            }
        }
        throw new IOException("no free holder slot after " + ROUNDS + " tries: holders keep coming and going");
    }

    /**
     * The refusal of {@code request} by the kit's {@link Admission} rule over the holders {@code read} shows (its own
     * excepted), naming the holder in the way; {@code null} if they admit it.
     */
    private static AcquireResult refusal(LockRequest request, Result read) {
        Admission admission = Admission.of(request);
        for (LockRecord other : LockRows.records(read)) {
            if (!other.handle().equals(request.handle()) && admission.blockedBy(other)) {
                return AcquireResult.heldBy(other);
            }
        }
        return admission.full() ? AcquireResult.heldBy(admission.permitHolder()) : null;
    }

    /** The acquisition if the row shows it in a slot (which may not be {@code claimed}), else {@code null}. */
    private AcquireResult ownIn(LockTable table, Result read, LockRequest request, HolderCell cell, byte[] prefix,
                                int claimed) throws IOException {
        int slot = LockRows.slotStartingWith(read, prefix);
        if (slot < 0) {
            return null;
        }
        if (slot != claimed) {
            slots.claimExactly(request.handle().key().storageKey(), slot);
        }
        AcquireResult result = granted(table, request, cell, prefix, slot, read.getColumnLatestCell(FAMILY, COUNTER));
        if (slot != claimed) {
            // the claim this store keeps is the slot the holder is in, whatever the caller claimed for this round
            slots.unclaim(request.handle().key().storageKey(), result.isAcquired() ? claimed : slot);
        }
        return result;
    }

    private AcquireResult granted(LockTable table, LockRequest request, HolderCell cell, byte[] prefix, int slot,
                                  Cell counter) throws IOException {
        LockHandle handle = request.handle();
        byte[] row = rowKey(handle.key().storageKey());
        Instant locked = Instant.ofEpochMilli(cell.meta().lockTime());
        LockRecord record = new LockRecord(handle, request.nodeId(), request.threadName(), locked,
                locked.plusMillis(cell.meta().leaseMillis()), LockStatus.RUNNING,
                Bytes.toLong(CellUtil.cloneValue(counter)), cell.mode(), cell.permits());
        AcquireResult result = FencingCounter.settle(table, row, HolderFilters.holds(holder(slot), prefix), record,
                counter);
        if (result.isAcquired()) {
            slots.hold(handle, new Held(row, slot, prefix, cell.withFencingToken(result.record().fencingToken())));
        }
        return result;
    }

    private static byte[] prefixOf(HolderCell holder) {
        return HolderCell.prefix(holder.mode(), holder.permits(), holder.ownerToken());
    }

    /** Adds to {@code actions} the renewal of {@code held}: a write, then a read. */
    static void addRenewal(Held held, long leaseMillis, List<Row> actions) {
        byte[] row = held.row();
        actions.add(CheckAndMutate.newBuilder(row).ifMatches(HolderFilters.holds(holder(held.slot()), held.prefix()))
                .build(new Put(row).addColumn(FAMILY, holder(held.slot()), held.cell().encode()).setTTL(leaseMillis)));
        actions.add(new Get(row).addColumn(FAMILY, slotAbort(held.slot())));
    }

    /** The state of {@code handle} from the answers to its {@link #addRenewal} actions. */
    HoldState renewed(LockHandle handle, Held held, CheckAndMutateResult written, Result read) {
        if (!written.isSuccess()) {
            slots.drop(handle);
        }
        return HoldState.of(written.isSuccess(), aborted(held, read));
    }

    static Get checkOf(Held held) {
        return new Get(held.row()).addColumn(FAMILY, holder(held.slot())).addColumn(FAMILY, slotAbort(held.slot()));
    }

    /** The state of {@code handle} from the answer to {@link #checkOf}. */
    HoldState checked(LockHandle handle, Held held, Result read) {
        boolean holds = LockRows.startsWith(read.getValue(FAMILY, holder(held.slot())), held.prefix());
        if (!holds) {
            slots.drop(handle);
        }
        return HoldState.of(holds, aborted(held, read));
    }

    private static boolean aborted(Held held, Result read) {
        return Arrays.equals(Bytes.toBytes(held.cell().ownerToken()), read.getValue(FAMILY, slotAbort(held.slot())));
    }

    /**
     * Frees the slot of {@code handle}, a holder of this store. The last holder of the row also frees the owner cell
     * in the same write. Which write is tried first depends on whether other threads of this store hold the key: if
     * they do, this holder is not the last, and a plain write of its slot is all it takes; else it tries as the last
     * one, and if others (of other nodes) remain, writes its slot plainly in a second round trip. Two holders that
     * leave at once may both take the plain write and leave the mark; the next exclusive acquisition clears it.
     */
    boolean release(LockTable table, LockHandle handle, Held held) throws IOException {
        byte[] row = held.row();
        byte[] column = holder(held.slot());
        Put free = new Put(row).addColumn(FAMILY, column, FREE);
        CheckAndMutate plain = CheckAndMutate.newBuilder(row).ifMatches(HolderFilters.holds(column, held.prefix())).build(free);
        try {
            boolean released;
            if (slots.claimedBesides(handle.key().storageKey(), held.slot())) {
                released = table.checkAndMutate(plain).isSuccess();
            } else {
                RowMutations last = new RowMutations(row, 2);
                last.add(free);
                last.add(new Put(row).addColumn(FAMILY, OWNER, FREE));
                released = table.checkAndMutate(CheckAndMutate.newBuilder(row)
                        .ifMatches(HolderFilters.onlyHolder(held.slot(), held.prefix())).build(last)).isSuccess()
                        || table.checkAndMutate(plain).isSuccess();
            }
            slots.drop(handle);
            return released;
        } catch (IOException e) {
            // the write may have applied: if the slot is no longer ours, the holder is gone either way
            if (!LockRows.startsWith(table.get(new Get(row).addColumn(FAMILY, column)).getValue(FAMILY, column),
                    held.prefix())) {
                slots.drop(handle);
                return true;
            }
            throw e;
        }
    }

    /**
     * Frees the slot of {@code handle}, a holder that this store did not take (a force-release asked on another
     * node), found by its owner token in the row. The row's mark stays when it was the last holder: the next
     * exclusive acquisition takes over a mark with no live holder behind it.
     */
    static boolean releaseForeign(LockTable table, LockHandle handle, byte[] row) throws IOException {
        for (Cell cell : table.get(LockRows.fullRow(row)).rawCells()) {
            int slot = HBaseTableLayout.slotOf(CellUtil.cloneQualifier(cell));
            if (slot < 0 || cell.getValueLength() == 0) {
                continue;
            }
            HolderCell holder = HolderCell.decode(CellUtil.cloneValue(cell));
            if (holder.ownerToken().equals(handle.ownerToken())) {
                return table.checkAndMutate(CheckAndMutate.newBuilder(row)
                        .ifMatches(HolderFilters.holds(holder(slot), prefixOf(holder)))
                        .build(new Put(row).addColumn(FAMILY, holder(slot), FREE))).isSuccess();
            }
        }
        return false;
    }

    /** Marks every live holder in the slots of {@code read}'s row for abort, in one batch. */
    static boolean markAbort(LockTable table, Result read) throws IOException {
        List<Row> marks = new ArrayList<>();
        byte[] row = read.getRow();
        for (Cell cell : read.rawCells()) {
            int slot = HBaseTableLayout.slotOf(CellUtil.cloneQualifier(cell));
            if (slot >= 0 && cell.getValueLength() > 0) {
                HolderCell holder = HolderCell.decode(CellUtil.cloneValue(cell));
                marks.add(CheckAndMutate.newBuilder(row)
                        .ifMatches(HolderFilters.holds(holder(slot), prefixOf(holder)))
                        .build(new Put(row).addColumn(FAMILY, slotAbort(slot), Bytes.toBytes(holder.ownerToken()))));
            }
        }
        if (marks.isEmpty()) {
            return false;
        }
        return table.batch(marks).stream().anyMatch(r -> r instanceof CheckAndMutateResult c && c.isSuccess());
    }
}
