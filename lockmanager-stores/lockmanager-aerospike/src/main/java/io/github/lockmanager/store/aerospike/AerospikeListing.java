package io.github.lockmanager.store.aerospike;

import com.aerospike.client.policy.WritePolicy;
import com.aerospike.client.ResultCode;
import com.aerospike.client.Record;
import com.aerospike.client.IAerospikeClient;
import com.aerospike.client.AerospikeException;
import com.aerospike.client.BatchRead;
import com.aerospike.client.BatchRecord;
import com.aerospike.client.Operation;
import com.aerospike.client.exp.Exp;
import com.aerospike.client.policy.ScanPolicy;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;

import java.util.ArrayList;
import java.util.List;

import static io.github.lockmanager.store.aerospike.AerospikeExpressions.NOW;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.ABORT;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.HOLDERS;

/** The store's live locks, for {@code getLocks()}: a scan of each lock set, then one batch read of the holders. */
final class AerospikeListing {
    private AerospikeListing() {
    }

    /** One scan per lock set for the keys with a live holder, then one batch read of their holders and clock. */
    static List<LockRecord> list(AerospikeAccess access) throws LockManagerException {
        return access.call("list locks", timeout -> {
            List<LockKey> keys = new ArrayList<>();
            List<BatchRecord> reads = new ArrayList<>();
            ScanPolicy policy = access.client().copyScanPolicyDefault();
            policy.totalTimeout = AerospikeAccess.clientTimeout(timeout);
            policy.includeBinData = false;
            policy.filterExp = Exp.build(AerospikeExpressions.anyLive(NOW, AerospikeExpressions.HOLDERS_OR_EMPTY));
            for (String set : access.lockSets()) {
                access.client().scanAll(policy, access.namespace(), set, (key, record) -> {
                    LockKey lockKey = key.userKey == null ? null
                            : AerospikeLayout.lockKey(set, access.setSuffix(), key.userKey.toString());
                    if (lockKey != null) {
                        synchronized (keys) {
                            keys.add(lockKey);
                            reads.add(new BatchRead(key, new Operation[]{Operation.get(HOLDERS), Operation.get(ABORT),
                                    AerospikeAccess.readNow()}));
                        }
                    }
                });
            }
            List<LockRecord> records = new ArrayList<>();
            if (!reads.isEmpty()) {
                access.client().operate(access.batchPolicy(timeout), reads);
                for (int i = 0; i < reads.size(); i++) {
                    records.addAll(AerospikeEntries.holders(keys.get(i), reads.get(i).record, true));
                }
            }
            return records;
        });
    }

    /** The key's holders (the live ones, or all), read with the server's clock in one operation. */
    static List<LockRecord> holders(AerospikeAccess access, LockKey key, long timeout, boolean liveOnly) {
        IAerospikeClient client = access.client();
        WritePolicy policy = client.copyWritePolicyDefault();
        policy.totalTimeout = AerospikeAccess.clientTimeout(timeout);
        try {
            Record record = client.operate(policy, access.lockKey(key), Operation.get(HOLDERS),
                    Operation.get(ABORT), AerospikeAccess.readNow());
            return AerospikeEntries.holders(key, record, liveOnly);
        } catch (AerospikeException e) {
            if (e.getResultCode() == ResultCode.KEY_NOT_FOUND_ERROR) {
                return List.of();
            }
            throw e;
        }
    }
}
