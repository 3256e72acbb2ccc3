package io.github.lockmanager.store.aerospike;

import com.aerospike.client.AerospikeException;
import com.aerospike.client.Bin;
import com.aerospike.client.Key;
import com.aerospike.client.Operation;
import com.aerospike.client.Record;
import com.aerospike.client.ResultCode;
import com.aerospike.client.Value;
import com.aerospike.client.exp.Exp;
import com.aerospike.client.exp.ExpOperation;
import com.aerospike.client.exp.ExpWriteFlags;
import com.aerospike.client.exp.MapExp;
import com.aerospike.client.policy.Policy;
import com.aerospike.client.policy.WritePolicy;
import io.github.lockmanager.LockData;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.store.support.DataUnderLock;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.github.lockmanager.store.aerospike.AerospikeExpressions.NOW;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.HOLDERS;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.RELEASED_BY;

/**
 * The caller's data kept in the lock's own record (Astyanax's row lock recipe): bins the caller names, beside the
 * lock's own bins, so that Aerospike's record atomicity guards them. Every read and change is checked against the
 * lock's entry in the same call, so a holder whose lease ended (or whose lock was force-released) can neither read
 * data as if it held the lock nor change it, and the last change can release the lock in the same write.
 *
 * <pre>{@code
 * AerospikeRecordData orders = new AerospikeRecordData(store);
 * try (LockResource held = locks.lock("order-123")) {
 *     Map<String, Object> data = orders.read(held);                        // 1 round trip
 *     orders.releaseWithChanges(held, Map.of("state", "PAID"), List.of());  // 1: the changes and the release
 * }
 * }</pre>
 *
 * <p>Round trips: {@link #read} 1, {@link #change} 1, {@link #releaseWithChanges} 1, so lock, read, change and
 * release cost 3. The data lives as long as the key's record: the store's idle record retention after the key's last
 * grant or renewal (raise the retention to keep it longer). Bin names are the caller's, at most 15 bytes, other than
 * the store's own ({@link AerospikeLayout#BINS}); values are what Aerospike stores (numbers, strings, bytes, lists,
 * maps). Exclusive locks only. Thread-safe.
 */
public final class AerospikeRecordData implements LockData<Object> {
    private final AerospikeAccess access;
    private final String storeName;

    /** @param store the store whose records hold the data; the managers that take the locks use it */
    public AerospikeRecordData(AerospikeLockStore store) {
        this.access = Require.notNull(store, "store").access();
        this.storeName = store.toString();
    }

    /**
     * The data bins of the lock's record, read in the same call that checks the lock is still this acquisition's.
     *
     * @throws LockLostException if it is not: nothing read may be relied on
     */
    @Override
    public Map<String, Object> read(LockResource held) throws LockManagerException, LockLostException {
        LockHandle handle = DataUnderLock.handleOf(held);
        Policy policy = access.client().copyReadPolicyDefault();
        policy.filterExp = Exp.build(AerospikeExpressions.live(handle.ownerToken(), NOW, Exp.mapBin(HOLDERS)));
        policy.failOnFilteredOut = true;
        Record record = access.call("read the data of lock '" + handle.key().name() + "'", timeout -> {
            policy.totalTimeout = (int) Math.min(Integer.MAX_VALUE, timeout);
            try {
                return access.client().get(policy, access.lockKey(handle.key()));
            } catch (AerospikeException e) {
                if (e.getResultCode() == ResultCode.FILTERED_OUT || e.getResultCode() == ResultCode.KEY_NOT_FOUND_ERROR) {
                    return null;
                }
                throw e;
            }
        });
        if (record == null) {
            throw DataUnderLock.lost(handle, storeName, "its data was not read");
        }
        Map<String, Object> data = new TreeMap<>(record.bins);
        AerospikeLayout.BINS.forEach(data::remove);
        return new LinkedHashMap<>(data);
    }

    /**
     * Writes {@code puts} and removes the bins {@code deletes} in one atomic write, applied only while the lock is
     * this acquisition's; the lock stays held.
     *
     * @throws LockLostException if it is not: nothing was written
     */
    @Override
    public void change(LockResource held, Map<String, ?> puts, Collection<String> deletes)
            throws LockManagerException, LockLostException {
        DataUnderLock.change(held, storeName, (handle, release) -> write(handle, puts, deletes, release));
    }

    /**
     * Writes the changes and releases the lock in one atomic write (Astyanax's {@code releaseWithMutation}): both
     * or neither. When the calling thread holds the lock more than once, only the changes are written and this hold
     * given back. If the write fails the lock is released by the manager apart.
     *
     * @throws LockLostException if the lock was not this acquisition's: nothing was written
     */
    @Override
    public void releaseWithChanges(LockResource held, Map<String, ?> puts, Collection<String> deletes)
            throws LockManagerException, LockLostException {
        DataUnderLock.releaseWith(held, storeName,
                (handle, release) -> write(handle, puts, deletes, release));
    }

    /**
     * The changes, and with {@code release} the removal of the entry, in one write filtered on the entry being live.
     * A release also leaves the acquisition's token in {@link AerospikeLayout#RELEASED_BY}, by which a repeated call
     * after an unanswered one that applied knows it did.
     */
    private boolean write(LockHandle handle, Map<String, ?> puts, Collection<String> deletes, boolean release)
            throws LockManagerException {
        Require.notNull(puts, "puts");
        Require.notNull(deletes, "deletes");
        List<Operation> ops = new ArrayList<>();
        new TreeMap<>(puts).forEach((bin, value) -> ops.add(Operation.put(new Bin(binName(bin),
                Value.get(Require.notNull(value, "value of bin " + bin))))));
        for (String bin : deletes) {
            ops.add(Operation.put(Bin.asNull(binName(bin))));
        }
        if (release) {
            ops.add(ExpOperation.write(HOLDERS, Exp.build(MapExp.removeByKey(Exp.val(handle.ownerToken()),
                    Exp.mapBin(HOLDERS))), ExpWriteFlags.DEFAULT));
            ops.add(Operation.put(new Bin(RELEASED_BY, handle.ownerToken())));
        }
        WritePolicy policy = access.client().copyWritePolicyDefault();
        policy.filterExp = Exp.build(AerospikeExpressions.live(handle.ownerToken(), NOW, Exp.mapBin(HOLDERS)));
        policy.failOnFilteredOut = true;
        policy.expiration = -2;
        policy.commitLevel = com.aerospike.client.policy.CommitLevel.COMMIT_ALL;
        Key key = access.lockKey(handle.key());
        if (ops.isEmpty()) {
            ops.add(Operation.get(HOLDERS));
        }
        Operation[] operations = ops.toArray(new Operation[0]);
        return access.call("write the data of lock '" + handle.key().name() + "'", timeout -> {
            policy.totalTimeout = (int) Math.min(Integer.MAX_VALUE, timeout);
            try {
                access.client().operate(policy, key, operations);
                return true;
            } catch (AerospikeException e) {
                if (e.getResultCode() == ResultCode.FILTERED_OUT || e.getResultCode() == ResultCode.KEY_NOT_FOUND_ERROR) {
                    return release && releasedBy(key, handle);
                }
                throw e;
            }
        });
    }

    private boolean releasedBy(Key key, LockHandle handle) {
        Record record = access.client().get(null, key, RELEASED_BY);
        return record != null && handle.ownerToken().equals(record.getString(RELEASED_BY));
    }

    private static String binName(String bin) {
        Require.notEmpty(bin, "bin");
        Require.argument(!AerospikeLayout.BINS.contains(bin), "bin '%s' is the lock store's own; name another", bin);
        Require.argument(bin.getBytes(StandardCharsets.UTF_8).length <= AerospikeLayout.MAX_BIN_NAME_BYTES,
                "bin '%s' is longer than Aerospike's 15 bytes", bin);
        return bin;
    }


    @Override
    public String toString() {
        return "AerospikeRecordData[" + storeName + "]";
    }
}
