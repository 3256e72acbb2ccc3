package io.github.lockmanager.store.aerospike;

import com.aerospike.client.BatchRead;
import com.aerospike.client.BatchRecord;
import com.aerospike.client.BatchWrite;
import com.aerospike.client.Operation;
import com.aerospike.client.ResultCode;
import com.aerospike.client.exp.Exp;
import com.aerospike.client.exp.ExpOperation;
import com.aerospike.client.exp.ExpReadFlags;
import com.aerospike.client.exp.ExpWriteFlags;
import com.aerospike.client.policy.BatchReadPolicy;
import com.aerospike.client.policy.BatchWritePolicy;
import com.aerospike.client.policy.CommitLevel;
import com.aerospike.client.policy.RecordExistsAction;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.github.lockmanager.store.aerospike.AerospikeAccess.DO_NOT_CHANGE_TTL;
import static io.github.lockmanager.store.aerospike.AerospikeExpressions.NOW;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.HOLDERS;

/** Renewal and check of a batch of locks: one batch call each (renewal: two where a record keeps a longer TTL). */
final class AerospikeBatches {
    /** The name under which a call returns whether an abort was asked; no bin of the record has it. */
    private static final String ABORT_ASKED = "aborted";

    private final AerospikeAccess access;

    AerospikeBatches(AerospikeAccess access) {
        this.access = access;
    }

    /**
     * One batch call: each handle's entry, while live, gets a lease from now; answers whether an abort was asked.
     * Entries whose record keeps a longer TTL than this renewal would give (another holder's longer lease) are
     * renewed in a second batch call that keeps it.
     */
    Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) throws LockManagerException {
        int ttl = access.ttlSeconds(lease);
        List<BatchRecord> writes = renewals(handles, lease, ttl);
        return access.call("renew " + handles.size() + " locks", timeout -> {
            access.client().operate(access.batchPolicy(timeout), writes);
            List<LockHandle> again = new ArrayList<>();
            for (int i = 0; i < handles.size(); i++) {
                if (writes.get(i).resultCode == ResultCode.FILTERED_OUT) {
                    again.add(handles.get(i));
                }
            }
            Map<LockHandle, HoldState> answers = answers(handles, writes);
            if (!again.isEmpty()) {
                List<BatchRecord> keepingTtl = renewals(again, lease, DO_NOT_CHANGE_TTL);
                access.client().operate(access.batchPolicy(timeout), keepingTtl);
                answers.putAll(answers(again, keepingTtl));
            }
            return answers;
        });
    }

    /** The writes renewing {@code handles}; a TTL other than "keep" also refuses to shorten a record's TTL. */
    private List<BatchRecord> renewals(List<LockHandle> handles, Duration lease, int ttl) {
        List<BatchRecord> writes = new ArrayList<>(handles.size());
        for (LockHandle handle : handles) {
            BatchWritePolicy policy = access.client().copyBatchWritePolicyDefault();
            policy.recordExistsAction = RecordExistsAction.UPDATE_ONLY;
            policy.commitLevel = CommitLevel.COMMIT_ALL;
            policy.expiration = ttl;
            Exp live = AerospikeExpressions.live(handle.ownerToken(), NOW, Exp.mapBin(HOLDERS));
            policy.filterExp = Exp.build(ttl == DO_NOT_CHANGE_TTL ? live : Exp.and(live, AerospikeExpressions.ttlAtMost(ttl)));
            writes.add(new BatchWrite(policy, access.lockKey(handle.key()), new Operation[]{
                    ExpOperation.write(HOLDERS, Exp.build(AerospikeExpressions.renewedHolders(handle.ownerToken(), lease)),
                            ExpWriteFlags.DEFAULT),
                    ExpOperation.read(ABORT_ASKED, Exp.build(AerospikeExpressions.abortAsked(handle)),
                            ExpReadFlags.DEFAULT)}));
        }
        return writes;
    }

    /** One batch read: whether each handle's entry is live, and whether an abort was asked. */
    Map<LockHandle, HoldState> check(List<LockHandle> handles) throws LockManagerException {
        List<BatchRecord> reads = new ArrayList<>(handles.size());
        for (LockHandle handle : handles) {
            BatchReadPolicy policy = new BatchReadPolicy();
            policy.filterExp = Exp.build(AerospikeExpressions.live(handle.ownerToken(), NOW, Exp.mapBin(HOLDERS)));
            reads.add(new BatchRead(policy, access.lockKey(handle.key()), new Operation[]{
                    ExpOperation.read(ABORT_ASKED, Exp.build(AerospikeExpressions.abortAsked(handle)),
                            ExpReadFlags.DEFAULT)}));
        }
        return access.call("check " + handles.size() + " locks", timeout -> {
            access.client().operate(access.batchPolicy(timeout), reads);
            return answers(handles, reads);
        });
    }

    private static Map<LockHandle, HoldState> answers(List<LockHandle> handles, List<BatchRecord> results) {
        Map<LockHandle, HoldState> answers = new LinkedHashMap<>();
        for (int i = 0; i < handles.size(); i++) {
            HoldState state = answer(results.get(i));
            if (state != null) {
                answers.put(handles.get(i), state);
            }
        }
        return answers;
    }

    /**
     * The answer for one handle: only "not found" and the ownership filter failing mean the lock is lost; any other
     * error leaves the lock unanswered ({@code null}), so that its lease counts as unconfirmed and it is asked again.
     */
    static HoldState answer(BatchRecord result) {
        switch (result.resultCode) {
            case ResultCode.OK:
                return HoldState.of(true, AerospikeEntries.isTrue(result.record, ABORT_ASKED));
            case ResultCode.FILTERED_OUT:
            case ResultCode.KEY_NOT_FOUND_ERROR:
                return HoldState.LOST;
            default:
                return null;
        }
    }
}
