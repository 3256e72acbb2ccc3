package io.github.lockmanager.store.hbase;

import io.github.lockmanager.LockMode;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.BinaryPrefixComparator;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.QualifierFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.filter.SkipFilter;
import org.apache.hadoop.hbase.filter.ValueFilter;

import static io.github.lockmanager.store.hbase.HBaseTableLayout.FAMILY;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.FREE;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.HOLDER_PREFIX;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.OWNER;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.SHARED_OWNER;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.holder;

/**
 * The conditions of the check-and-mutates on holder slots, as filters over the key's row: HBase applies the
 * mutation when the filtered row is not empty. A "no cell may be X" condition is a {@link SkipFilter}, which drops
 * the whole row when any live cell fails its inner filter; a row that exists always has its counter cell, so an
 * unconflicted row is never empty. Expired cells never reach a filter: the server drops them first.
 */
final class HolderFilters {
    private HolderFilters() {
    }

    /**
     * Rows where a holder in {@code mode} whose values start with {@code prefix} may be added in {@code slot}
     * ({@code -1} and {@code null}: no slot, for an exclusive owner): the owner cell holds no live exclusive owner,
     * no slot holds a mode that conflicts (nor, for a permit, a permit holder of another number than {@code permits}), the slot is free, and no slot holds this very holder already (an earlier
     * attempt whose answer was lost may have applied).
     */
    static Filter mayHold(LockMode mode, int permits, int slot, byte[] prefix) {
        FilterList every = new FilterList(FilterList.Operator.MUST_PASS_ALL, noExclusiveOwner());
        if (mode == LockMode.PERMIT) {
            // no permit holder of another number: each slot is no permit holder, or one of the request's number
            every.addFilter(anyOf(notHolderSlot(), new ValueFilter(CompareOperator.NOT_EQUAL,
                            new BinaryPrefixComparator(new byte[] {HolderCell.modeByte(mode)})),
                    new ValueFilter(CompareOperator.EQUAL,
                            new BinaryPrefixComparator(HolderCell.modePrefix(mode, permits)))));
        }
        for (LockMode held : LockMode.values()) {
            // exclusive holders are in the owner cell, never in a slot
            if (held != LockMode.EXCLUSIVE && mode.conflictsWith(held)) {
                every.addFilter(anyOf(notHolderSlot(), new ValueFilter(CompareOperator.NOT_EQUAL,
                        new BinaryPrefixComparator(new byte[]{HolderCell.modeByte(held)}))));
            }
        }
        if (slot >= 0) {
            every.addFilter(anyOf(notColumn(holder(slot)), empty()));
            every.addFilter(anyOf(notHolderSlot(), new ValueFilter(CompareOperator.NOT_EQUAL,
                    new BinaryPrefixComparator(prefix))));
        }
        return new SkipFilter(every);
    }

    /** Rows where the holder whose values start with {@code prefix} is in {@code slot} and every other slot is free. */
    static Filter onlyHolder(int slot, byte[] prefix) {
        // the column check first, so that it sees its column's cell whatever the other member makes of it
        return new FilterList(FilterList.Operator.MUST_PASS_ALL, holds(holder(slot), prefix),
                new SkipFilter(new FilterList(FilterList.Operator.MUST_PASS_ALL, noExclusiveOwner(),
                        anyOf(notHolderSlot(), empty(), new QualifierFilter(CompareOperator.EQUAL,
                                new BinaryComparator(holder(slot)))))));
    }

    /** Rows whose live {@code column} starts with {@code prefix}. */
    static Filter holds(byte[] column, byte[] prefix) {
        SingleColumnValueFilter holds = new SingleColumnValueFilter(FAMILY, column, CompareOperator.EQUAL,
                new BinaryPrefixComparator(prefix));
        holds.setFilterIfMissing(true);
        return holds;
    }

    /** Rows whose live {@code column} is exactly {@code value}. */
    static Filter is(byte[] column, byte[] value) {
        SingleColumnValueFilter is = new SingleColumnValueFilter(FAMILY, column, CompareOperator.EQUAL, value);
        is.setFilterIfMissing(true);
        return is;
    }

    /** Passes every cell but a live exclusive owner. */
    private static Filter noExclusiveOwner() {
        return anyOf(notColumn(OWNER), empty(), new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(SHARED_OWNER)));
    }

    private static Filter notHolderSlot() {
        return new QualifierFilter(CompareOperator.NOT_EQUAL, new BinaryPrefixComparator(HOLDER_PREFIX));
    }

    private static Filter notColumn(byte[] qualifier) {
        return new QualifierFilter(CompareOperator.NOT_EQUAL, new BinaryComparator(qualifier));
    }

    private static Filter empty() {
        return new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(FREE));
    }

    private static Filter anyOf(Filter... filters) {
        return new FilterList(FilterList.Operator.MUST_PASS_ONE, filters);
    }
}
