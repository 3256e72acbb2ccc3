package io.github.lockmanager.store.hbase;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.store.support.ExclusiveOverMarks;
import io.github.lockmanager.store.support.HolderRegistry;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.util.Bytes;

import java.io.IOException;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;

import static io.github.lockmanager.store.hbase.HBaseTableLayout.COUNTER;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.FAMILY;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.FREE;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.META;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.OWNER;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.SHARED_OWNER;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.rowKey;

/**
 * Exclusive acquisitions of the lock table, in the kit's order ({@link ExclusiveOverMarks}): the owner cell written
 * if free (or the predecessor's), a row marked for holders in other modes taken over once none of them is live, and
 * each grant's token settled from the row's counter. Grants on a fresh counter are remembered in the store's
 * registry, for their release to store their token ({@link FencingCounter}). Thread-safe.
 */
final class ExclusiveRows {
    private final HolderRegistry<Long> freshTokens;

    ExclusiveRows(HolderRegistry<Long> freshTokens) {
        this.freshTokens = freshTokens;
    }

    AcquireResult acquire(LockTable table, LockRequest request, long leaseMillis) throws IOException {
        LockHandle handle = request.handle();
        byte[] row = rowKey(handle.key().storageKey());
        byte[] owner = Bytes.toBytes(handle.ownerToken());
        long lockTime = System.currentTimeMillis();
        RowMutations mutations = new RowMutations(row, 3);
        mutations.add(HBaseTableLayout.leasedOwner(row, owner, leaseMillis));
        mutations.add(new Put(row).addColumn(FAMILY, META,
                LockMeta.encode(request.nodeId(), request.threadName(), lockTime, leaseMillis)));
        mutations.add(new Increment(row).addColumn(FAMILY, COUNTER, 1));
        Instant locked = Instant.ofEpochMilli(lockTime);
        LockRecord granted = new LockRecord(handle, request.nodeId(), request.threadName(), locked,
                locked.plusMillis(leaseMillis), LockStatus.RUNNING, 0);
        LockHandle predecessor = request.predecessor();
        return ExclusiveOverMarks.acquire(new ExclusiveOverMarks.Steps<Result, IOException>() {
            @Override
            public AcquireResult writeIfFree() throws IOException {
                if (predecessor == null) {
                    return takeIf(table, row, CheckAndMutate.newBuilder(row).ifEquals(FAMILY, OWNER, FREE)
                            .build(mutations), granted);
                }
                // a hand-off: the predecessor's owner cell, while its TTL lasts; once it is gone (expired, released,
                // force-released) the hand-off is refused, so that the predecessor's node learns it lost the key
                AcquireResult result = takeIf(table, row, CheckAndMutate.newBuilder(row)
                        .ifEquals(FAMILY, OWNER, Bytes.toBytes(predecessor.ownerToken())).build(mutations), granted);
                if (result == null) {
                    return ownOr(table, row, read(), handle);
                }
                // the predecessor's record is this grant's now: it is never released, so nothing of it is kept
                freshTokens.forget(predecessor);
                return result;
            }

            @Override
            public Result read() throws IOException {
                return table.get(LockRows.fullRow(row));
            }

            @Override
            public boolean isMark(Result read) {
                return Arrays.equals(SHARED_OWNER, read.getValue(FAMILY, OWNER));
            }

            @Override
            public Optional<LockRecord> liveHolderBehind(Result read) {
                return LockRows.anyHolder(read);
            }

            /* the holders in the slots are gone without the last one freeing the owner cell: it crashed */
            @Override
            public AcquireResult takeOver(Result read) throws IOException {
                return takeIf(table, row, CheckAndMutate.newBuilder(row)
                        .ifMatches(HolderFilters.mayHold(LockMode.EXCLUSIVE, 0, -1, null)).build(mutations), granted);
            }

            /* may name this very acquisition, when an earlier attempt that timed out applied after all */
            @Override
            public AcquireResult refusal(Result read) throws IOException {
                return ownOr(table, row, read, handle);
            }
        });
    }

    /**
     * The acquisition {@code granted} if {@code write} applies (its token from the counter the write moved), or if
     * it times out and the row shows it applied; {@code null} if refused.
     */
    private AcquireResult takeIf(LockTable table, byte[] row, CheckAndMutate write, LockRecord granted)
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
        return settle(table, row, granted, counter);
    }

    /** This acquisition if {@code read} shows it as the row's owner, else a refusal naming a holder. */
    private AcquireResult ownOr(LockTable table, byte[] row, Result read, LockHandle handle) throws IOException {
        Optional<LockRecord> current = LockRows.exclusive(read);
        if (current.isPresent() && current.get().handle().equals(handle)) {
            return settle(table, row, current.get(), read.getColumnLatestCell(FAMILY, COUNTER));
        }
        return AcquireResult.heldBy(current.or(() -> LockRows.anyHolder(read)).orElse(null));
    }

    /**
     * The grant {@code record} with its token from {@code counter}; a grant on a fresh counter is remembered, for its
     * release to store its token in the counter ({@link FencingCounter}).
     */
    private AcquireResult settle(LockTable table, byte[] row, LockRecord record, Cell counter) throws IOException {
        AcquireResult result = FencingCounter.settle(table, row,
                HolderFilters.is(OWNER, Bytes.toBytes(record.handle().ownerToken())), record, counter);
        if (result.isAcquired() && CounterCell.isFresh(counter)) {
            freshTokens.remember(record.handle(), result.record().fencingToken());
        }
        return result;
    }
}
