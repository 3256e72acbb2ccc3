package io.github.lockmanager.store.aerospike;

import com.aerospike.client.AerospikeException;
import com.aerospike.client.Bin;
import com.aerospike.client.Key;
import com.aerospike.client.Operation;
import com.aerospike.client.Record;
import com.aerospike.client.ResultCode;
import com.aerospike.client.exp.Exp;
import com.aerospike.client.exp.ExpOperation;
import com.aerospike.client.exp.ExpReadFlags;
import com.aerospike.client.exp.ExpWriteFlags;
import com.aerospike.client.exp.MapExp;
import com.aerospike.client.policy.WritePolicy;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.store.support.Admission;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static io.github.lockmanager.store.aerospike.AerospikeExpressions.NOW;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.ABORT;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.FENCE;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.HOLDERS;

/**
 * Grants and releases, one operation on the key's record each, decided on the server by expressions: the store's part
 * that Redis' scripts are to {@code RedisGrants}. Thread-safe.
 */
final class AerospikeGrants {
    /** The name under which a release returns whether its entry was live; no bin of the record has it. */
    private static final String WAS_LIVE = "waslive";

    private final AerospikeAccess access;

    AerospikeGrants(AerospikeAccess access) {
        this.access = access;
    }

    /**
     * One operation on the key's record: its filter grants (the request's own entry is there, or the predecessor's,
     * or no live holder conflicts), its writes move the fencing counter and put the entry, and it reads the holders
     * back. A refusal writes nothing and reads the holders once more to name one. Where the record keeps a longer
     * TTL than this grant would give it (another holder's longer lease), the filter refuses that too, and the grant
     * is made again keeping the TTL: one more round trip, so that no grant shortens another holder's record.
     */
    AcquireResult acquire(LockRequest request, Duration lease) throws LockManagerException {
        LockHandle handle = request.handle();
        Key key = access.lockKey(handle.key());
        int ttl = access.ttlSeconds(lease);
        Exp granted = AerospikeExpressions.granted(request, NOW);
        WritePolicy policy = access.writePolicy(ttl, Exp.and(granted, AerospikeExpressions.ttlAtMost(ttl)));
        WritePolicy keepingTtl = access.writePolicy(AerospikeAccess.DO_NOT_CHANGE_TTL, granted);
        List<Operation> grant = new ArrayList<>(List.of(
                ExpOperation.write(FENCE, Exp.build(AerospikeExpressions.nextFence(request)), ExpWriteFlags.EVAL_NO_FAIL),
                ExpOperation.write(HOLDERS, Exp.build(AerospikeExpressions.grantedHolders(request, lease,
                        AerospikeEntries.template(request, lease))), ExpWriteFlags.DEFAULT),
                Operation.get(HOLDERS), Operation.get(ABORT), AerospikeAccess.readNow()));
        if (request.mode() == LockMode.PERMIT) {
            grant.add(0, Operation.put(new Bin(AerospikeLayout.PERMITS, request.permits())));
        }
        Operation[] ops = grant.toArray(new Operation[0]);
        return access.call("acquire lock '" + handle.key().name() + "' " + request.mode(), timeout -> {
                    policy.totalTimeout = AerospikeAccess.clientTimeout(timeout);
                    Record answer = access.operateUnlessFiltered(policy, key, ops);
                    if (answer == null) {
                        LockRecord holder = conflicting(request, AerospikeListing.holders(access, handle.key(), timeout, true));
                        if (holder != null) {
                            return AcquireResult.heldBy(holder);
                        }
                        keepingTtl.totalTimeout = AerospikeAccess.clientTimeout(timeout);
                        answer = access.operateUnlessFiltered(keepingTtl, key, ops);
                    }
                    LockRecord mine = find(handle, AerospikeEntries.holders(handle.key(), answer, false));
                    if (mine != null) {
                        return AcquireResult.acquired(mine);
                    }
                    List<LockRecord> live = AerospikeListing.holders(access, handle.key(), timeout, true);
                    return AcquireResult.heldBy(live.isEmpty() ? null : live.get(0));
                });
    }

    /**
     * A live holder that keeps {@code request} out by the kit's {@link Admission} rule, other than the request's own or
     * its predecessor; {@code null} if none does.
     */
    private static LockRecord conflicting(LockRequest request, List<LockRecord> live) {
        Admission admission = Admission.of(request);
        for (LockRecord holder : live) {
            if (!holder.handle().equals(request.handle()) && !holder.handle().equals(request.predecessor())
                    && admission.blockedBy(holder)) {
                return holder;
            }
        }
        return admission.full() ? admission.permitHolder() : null;
    }

    private static LockRecord find(LockHandle handle, List<LockRecord> holders) {
        for (LockRecord holder : holders) {
            if (holder.handle().equals(handle)) {
                return holder;
            }
        }
        return null;
    }

    /**
     * One operation: removes the handle's entry if it is there. {@code true} if it was live; a repeated call after an
     * unanswered one that may have applied counts the entry it finds gone as released by that one.
     */
    boolean release(LockHandle handle) throws LockManagerException {
        Key key = access.lockKey(handle.key());
        WritePolicy policy = access.writePolicy(AerospikeAccess.DO_NOT_CHANGE_TTL,
                AerospikeExpressions.present(handle.ownerToken(), Exp.mapBin(HOLDERS)));
        Operation[] ops = {
                ExpOperation.read(WAS_LIVE, Exp.build(AerospikeExpressions.live(handle.ownerToken(), NOW,
                        Exp.mapBin(HOLDERS))), ExpReadFlags.DEFAULT),
                ExpOperation.write(HOLDERS, Exp.build(MapExp.removeByKey(Exp.val(handle.ownerToken()),
                        Exp.mapBin(HOLDERS))), ExpWriteFlags.DEFAULT)};
        boolean[] inDoubt = {false};
        return access.call("release lock '" + handle.key().name() + "'",
                timeout -> {
                    policy.totalTimeout = AerospikeAccess.clientTimeout(timeout);
                    try {
                        Record released = access.client().operate(policy, key, ops);
                        return AerospikeEntries.isTrue(released, WAS_LIVE);
                    } catch (AerospikeException e) {
                        if (e.getResultCode() == ResultCode.FILTERED_OUT
                                || e.getResultCode() == ResultCode.KEY_NOT_FOUND_ERROR) {
                            return inDoubt[0];
                        }
                        inDoubt[0] |= AerospikeAccess.isTransient(e);
                        throw e;
                    }
                });
    }
}
