package io.github.lockmanager.store.hbase;

import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.store.hbase.HolderSlots.Held;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.util.Bytes;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.github.lockmanager.store.hbase.HBaseTableLayout.ABORT;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.FAMILY;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.OWNER;
import static io.github.lockmanager.store.hbase.HBaseTableLayout.rowKey;

/** Renewal and check of a batch of locks: one HBase batch call each, exclusive owners and slotted holders alike. */
final class HBaseBatches {
    private final SharedHolders holders;

    HBaseBatches(SharedHolders holders) {
        this.holders = holders;
    }

    /** One batch: each exclusive lock's owner cell rewritten with a new TTL while it is the handle's, its abort mark read. */
    Map<LockHandle, HoldState> renew(LockTable table, List<LockHandle> handles, Duration lease) throws IOException {
        long leaseMillis = lease.toMillis();
        {
            List<Row> actions = new ArrayList<>(handles.size() * 2);
            List<Held> slotted = new ArrayList<>(handles.size());
            for (LockHandle handle : handles) {
                Held held = holders.of(handle);
                slotted.add(held);
                if (held != null) {
                    SharedHolders.addRenewal(held, leaseMillis, actions);
                    continue;
                }
                byte[] row = rowKey(handle.key().storageKey());
                byte[] owner = Bytes.toBytes(handle.ownerToken());
                // the lease in the meta cell is the acquisition's, which renews with the same lease
                actions.add(CheckAndMutate.newBuilder(row).ifEquals(FAMILY, OWNER, owner)
                        .build(HBaseTableLayout.leasedOwner(row, owner, leaseMillis)));
                actions.add(new Get(row).addColumn(FAMILY, ABORT));
            }
            List<Object> results = table.batch(actions);
            Map<LockHandle, HoldState> answers = new LinkedHashMap<>();
            for (int i = 0; i < handles.size(); i++) {
                LockHandle handle = handles.get(i);
                if (slotted.get(i) != null) {
                    answers.put(handle, holders.renewed(handle, slotted.get(i),
                            (CheckAndMutateResult) results.get(2 * i), (Result) results.get(2 * i + 1)));
                    continue;
                }
                boolean renewed = ((CheckAndMutateResult) results.get(2 * i)).isSuccess();
                byte[] abortFor = ((Result) results.get(2 * i + 1)).getValue(FAMILY, ABORT);
                answers.put(handle, HoldState.of(renewed, Arrays.equals(abortFor, Bytes.toBytes(handle.ownerToken()))));
            }
            return answers;
        }
    }

    /** One batch read of each lock's owner and abort mark (a holder's slot for the others). */
    Map<LockHandle, HoldState> check(LockTable table, List<LockHandle> handles) throws IOException {
        {
            List<Get> gets = new ArrayList<>(handles.size());
            List<Held> slotted = new ArrayList<>(handles.size());
            for (LockHandle handle : handles) {
                Held held = holders.of(handle);
                slotted.add(held);
                gets.add(held != null ? SharedHolders.checkOf(held)
                        : new Get(rowKey(handle.key().storageKey())).addColumn(FAMILY, OWNER).addColumn(FAMILY, ABORT));
            }
            List<Result> results = table.get(gets);
            Map<LockHandle, HoldState> answers = new LinkedHashMap<>();
            for (int i = 0; i < handles.size(); i++) {
                if (slotted.get(i) != null) {
                    answers.put(handles.get(i), holders.checked(handles.get(i), slotted.get(i), results.get(i)));
                    continue;
                }
                byte[] owner = Bytes.toBytes(handles.get(i).ownerToken());
                Result result = results.get(i);
                answers.put(handles.get(i), HoldState.of(Arrays.equals(owner, result.getValue(FAMILY, OWNER)),
                        Arrays.equals(owner, result.getValue(FAMILY, ABORT))));
            }
            return answers;
        }
    }
}
