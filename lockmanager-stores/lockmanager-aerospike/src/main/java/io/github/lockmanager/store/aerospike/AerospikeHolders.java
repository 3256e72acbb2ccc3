package io.github.lockmanager.store.aerospike;

import com.aerospike.client.AerospikeException;
import com.aerospike.client.BatchDelete;
import com.aerospike.client.BatchRecord;
import com.aerospike.client.BatchWrite;
import com.aerospike.client.Bin;
import com.aerospike.client.IAerospikeClient;
import com.aerospike.client.Key;
import com.aerospike.client.Operation;
import com.aerospike.client.Record;
import com.aerospike.client.ResultCode;
import com.aerospike.client.Value;
import com.aerospike.client.cdt.MapOperation;
import com.aerospike.client.cdt.MapPolicy;
import com.aerospike.client.cdt.MapReturnType;
import com.aerospike.client.exp.Exp;
import com.aerospike.client.exp.ExpOperation;
import com.aerospike.client.exp.ExpWriteFlags;
import com.aerospike.client.exp.Expression;
import com.aerospike.client.exp.MapExp;
import com.aerospike.client.policy.BatchDeletePolicy;
import com.aerospike.client.policy.BatchWritePolicy;
import com.aerospike.client.policy.CommitLevel;
import com.aerospike.client.policy.GenerationPolicy;
import com.aerospike.client.policy.RecordExistsAction;
import com.aerospike.client.policy.WritePolicy;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static io.github.lockmanager.store.aerospike.AerospikeLayout.HOLDERS;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.MODE;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.OWNER;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.SHARED_OWNER;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.STATUS;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.TOKEN;

/**
 * The holders of keys taken in modes other than exclusive ({@link AerospikeLayout}: a marker under the lock record's
 * user key, a holder record per holder). Aerospike changes one record atomically, so the decision is the marker's:
 * <ul>
 *   <li>A holder first creates its holder record (its lease, on the server's clock), then joins the marker in one
 *       operation whose filter lets it in only if the record is no exclusive lock and lists no holder in a
 *       conflicting mode; the marker is created by that same operation when absent. Because the holder record exists
 *       before the holder's entry, an entry whose holder record is gone is stale for sure: its holder released it or
 *       its lease ran out.</li>
 *   <li>A conflicting entry refuses the join only while its holder record lives; stale ones are removed (conditional
 *       on the marker's generation) and the join is tried again.</li>
 *   <li>The first holders of a marker move the key's fencing counter after joining and stamp the marker with the
 *       first value; later holders share it. Every earlier exclusive holder had moved the counter before the marker
 *       could be made, so the holders' token is above all of theirs.</li>
 *   <li>An exclusive acquisition finding a marker takes it over (conditional on its generation) only when no entry's
 *       holder record lives; the last holder to leave deletes it (conditional on its being empty).</li>
 * </ul>
 * Round trips: a holder joining a key already held in a compatible mode 2; the first holder of a key 4 (plus the
 * counter and the stamp); release 1 batch call, 2 for the last holder; renewal and abort polls ride in the store's
 * batches, one holder record per holder.
 */
final class AerospikeHolders {
    /** How often a join or a takeover reads the marker again after a race with another writer of it. */
    private static final int ROUNDS = 5;
    private static final int NEVER_EXPIRE = -1;
    private static final int DO_NOT_CHANGE_TTL = -2;
    /** The record is a marker, not an exclusive lock. */
    static final Exp IS_MARKER = Exp.eq(Exp.stringBin(OWNER), Exp.val(SHARED_OWNER));

    private final AerospikeLockStore store;
    private final IAerospikeClient client;
    /** This store's holders in modes other than exclusive: their renewals and checks go to their holder records. */
    private final Set<LockHandle> handles = ConcurrentHashMap.newKeySet();

    AerospikeHolders(AerospikeLockStore store, IAerospikeClient client) {
        this.store = store;
        this.client = client;
    }

    boolean holds(LockHandle handle) {
        return !handles.isEmpty() && handles.contains(handle);
    }

    void forget(LockHandle handle) {
        handles.remove(handle);
    }

    Key holderKey(LockHandle handle) {
        return store.recordKey(handle.key(), AerospikeLayout.holderUserKey(handle.key(), handle.ownerToken()));
    }

    static boolean isMarker(Record record) {
        return record != null && SHARED_OWNER.equals(record.getString(OWNER));
    }

    AcquireResult acquire(LockRequest request, Duration lease, long timeout) {
        LockHandle handle = request.handle();
        long lockTime = System.currentTimeMillis();
        createHolderRecord(request, lease, lockTime, timeout);
        Key lockKey = store.lockKey(handle.key());
        for (int round = 0; round < ROUNDS; round++) {
            Record joined = join(request, lockKey, timeout);
            if (joined != null) {
                long token = lastLong(joined, TOKEN);
                if (token == 0) {
                    token = stamp(handle, lockKey, timeout);
                }
                if (token > 0) {
                    handles.add(handle);
                    return AcquireResult.acquired(new LockRecord(handle, request.nodeId(), request.threadName(),
                            Instant.ofEpochMilli(lockTime), Instant.now().plus(lease), LockStatus.RUNNING, token,
                            request.mode()));
                }
                // our entry is gone: our holder record ran out before we could use it
                release(handle, timeout);
                return AcquireResult.heldBy(store.readLive(handle.key(), timeout).orElse(null));
            }
            Record current = client.get(null, lockKey);
            if (current == null) {
                continue;
            }
            if (!isMarker(current)) {
                release(handle, timeout);
                return AcquireResult.heldBy(AerospikeLockStore.toRecord(handle.key(), current).orElse(null));
            }
            List<String> conflicting = new ArrayList<>();
            entries(current).forEach((token, mode) -> {
                if (LockMode.valueOf(mode).conflictsWith(request.mode())) {
                    conflicting.add(token);
                }
            });
            List<LockRecord> live = live(handle.key(), current, conflicting, timeout);
            if (!live.isEmpty()) {
                release(handle, timeout);
                return AcquireResult.heldBy(live.get(0));
            }
            removeEntries(lockKey, current, conflicting, timeout);
        }
        throw busy(handle.key(), "changed " + ROUNDS + " times while this node joined its holders");
    }

    private void createHolderRecord(LockRequest request, Duration lease, long lockTime, long timeout) {
        try {
            client.operate(store.writePolicy(RecordExistsAction.CREATE_ONLY, AerospikeLayout.ttlSeconds(lease), null,
                    timeout), holderKey(request.handle()), store.recordBins(request, lease, lockTime,
                    Operation.put(new Bin(MODE, request.mode().name()))));
        } catch (AerospikeException e) {
            // its key is this acquisition's own: it exists because an earlier attempt of this call made it
            if (e.getResultCode() != ResultCode.KEY_EXISTS_ERROR) {
                throw e;
            }
        }
    }

    /** Adds the holder's entry to the marker, creating it if absent; {@code null} if a holder refused it. */
    private Record join(LockRequest request, Key lockKey, long timeout) {
        WritePolicy policy = store.writePolicy(RecordExistsAction.UPDATE, NEVER_EXPIRE, joinFilter(request.mode()),
                timeout);
        try {
            return client.operate(policy, lockKey,
                    Operation.put(new Bin(OWNER, SHARED_OWNER)),
                    MapOperation.put(MapPolicy.Default, HOLDERS, Value.get(request.handle().ownerToken()),
                            Value.get(request.mode().name())),
                    ExpOperation.write(TOKEN, Exp.build(Exp.val(0L)), ExpWriteFlags.CREATE_ONLY | ExpWriteFlags.POLICY_NO_FAIL),
                    Operation.get(TOKEN));
        } catch (AerospikeException e) {
            if (e.getResultCode() == ResultCode.FILTERED_OUT) {
                return null;
            }
            throw e;
        }
    }

    /**
     * Who may join: nobody holds the key (whether the server applies a filter to a record it creates or not, the
     * first term lets it in), or it is a marker without an entry in a mode conflicting with {@code mode}. Expired
     * entries still count here; {@link #acquire} removes them when they are in the way.
     */
    static Expression joinFilter(LockMode mode) {
        List<Exp> conditions = new ArrayList<>(List.of(IS_MARKER));
        for (LockMode other : LockMode.values()) {
            if (other != LockMode.EXCLUSIVE && other.conflictsWith(mode)) {
                conditions.add(Exp.eq(MapExp.getByValue(MapReturnType.COUNT, Exp.val(other.name()),
                        Exp.mapBin(HOLDERS)), Exp.val(0)));
            }
        }
        Exp allowed = conditions.size() == 1 ? IS_MARKER : Exp.and(conditions.toArray(new Exp[0]));
        return Exp.build(Exp.or(Exp.not(Exp.binExists(OWNER)), allowed));
    }

    /**
     * Gives the marker a fencing token if it has none yet (the first holders race for it: the first value stays) and
     * returns the marker's token; 0 if the holder's entry is no longer in the marker.
     */
    private long stamp(LockHandle handle, Key lockKey, long timeout) {
        long token = store.nextFencingToken(handle.key(), timeout);
        Exp memberOf = Exp.and(IS_MARKER,
                Exp.gt(MapExp.getByKey(MapReturnType.COUNT, Exp.Type.INT, Exp.val(handle.ownerToken()),
                        Exp.mapBin(HOLDERS)), Exp.val(0)));
        Exp first = Exp.cond(Exp.eq(Exp.intBin(TOKEN), Exp.val(0L)), Exp.val(token), Exp.intBin(TOKEN));
        try {
            Record stamped = client.operate(store.writePolicy(RecordExistsAction.UPDATE_ONLY, DO_NOT_CHANGE_TTL,
                            Exp.build(memberOf), timeout), lockKey,
                    ExpOperation.write(TOKEN, Exp.build(first), ExpWriteFlags.DEFAULT), Operation.get(TOKEN));
            return lastLong(stamped, TOKEN);
        } catch (AerospikeException e) {
            if (e.getResultCode() == ResultCode.FILTERED_OUT || e.getResultCode() == ResultCode.KEY_NOT_FOUND_ERROR) {
                return 0;
            }
            throw e;
        }
    }

    /**
     * Deletes the holder record and the holder's entry in one batch call; the last holder then deletes the marker
     * unless someone joined meanwhile. {@code true} if the holder record was still this handle's, or if an earlier
     * attempt of the same release ({@code retried}) may have deleted it.
     */
    boolean release(LockHandle handle, long timeout, boolean retried) {
        forget(handle);
        BatchDeletePolicy deletePolicy = client.copyBatchDeletePolicyDefault();
        deletePolicy.commitLevel = CommitLevel.COMMIT_ALL;
        deletePolicy.durableDelete = store.durableDelete();
        deletePolicy.filterExp = AerospikeLockStore.ownedBy(handle);
        BatchDelete holder = new BatchDelete(deletePolicy, holderKey(handle));
        BatchWrite leave = new BatchWrite(store.updatePolicy(DO_NOT_CHANGE_TTL, Exp.build(IS_MARKER)), store.lockKey(handle.key()), new Operation[]{
                MapOperation.removeByKey(HOLDERS, Value.get(handle.ownerToken()), MapReturnType.NONE),
                MapOperation.size(HOLDERS)});
        client.operate(store.batchPolicy(timeout), List.of(holder, leave));
        if (leave.resultCode == ResultCode.OK && lastLong(leave.record, HOLDERS) == 0) {
            deleteIfEmpty(handle.key(), timeout);
        }
        switch (holder.resultCode) {
            case ResultCode.OK:
                return true;
            case ResultCode.KEY_NOT_FOUND_ERROR:
                return retried;
            case ResultCode.FILTERED_OUT:
                return false;
            default:
                throw new AerospikeException(holder.resultCode, holder.inDoubt);
        }
    }

    private void release(LockHandle handle, long timeout) {
        release(handle, timeout, false);
    }

    private void deleteIfEmpty(LockKey key, long timeout) {
        WritePolicy policy = store.writePolicy(RecordExistsAction.UPDATE, 0, Exp.build(Exp.and(IS_MARKER,
                Exp.eq(MapExp.size(Exp.mapBin(HOLDERS)), Exp.val(0)))), timeout);
        policy.durableDelete = store.durableDelete();
        try {
            client.delete(policy, store.lockKey(key));
        } catch (AerospikeException e) {
            if (e.getResultCode() != ResultCode.FILTERED_OUT) {
                throw e;
            }
        }
    }

    /**
     * Takes over a marker none of whose holders lives any more, for the exclusive {@code request}: empty if taken
     * (the caller then stamps its token), else the refusal naming a live holder or whoever took the key first.
     */
    Optional<AcquireResult> takeOver(LockRequest request, Duration lease, Record marker, long timeout) {
        LockKey key = request.key();
        Key lockKey = store.lockKey(key);
        Record current = marker;
        for (int round = 0; round < ROUNDS; round++) {
            if (current == null) {
                throw busy(key, "was deleted while this node took it over");
            }
            if (!isMarker(current)) {
                return Optional.of(AcquireResult.heldBy(AerospikeLockStore.toRecord(key, current).orElse(null)));
            }
            List<LockRecord> live = live(key, current, new ArrayList<>(entries(current).keySet()), timeout);
            if (!live.isEmpty()) {
                return Optional.of(AcquireResult.heldBy(live.get(0)));
            }
            WritePolicy policy = store.writePolicy(RecordExistsAction.UPDATE_ONLY, AerospikeLayout.ttlSeconds(lease),
                    null, timeout);
            policy.generationPolicy = GenerationPolicy.EXPECT_GEN_EQUAL;
            policy.generation = current.generation;
            try {
                client.operate(policy, lockKey, store.recordBins(request, lease, System.currentTimeMillis(),
                        Operation.put(Bin.asNull(HOLDERS))));
                return Optional.empty();
            } catch (AerospikeException e) {
                if (e.getResultCode() != ResultCode.GENERATION_ERROR && e.getResultCode() != ResultCode.KEY_NOT_FOUND_ERROR) {
                    throw e;
                }
            }
            current = client.get(null, lockKey);
        }
        throw busy(key, "changed " + ROUNDS + " times while this node took it over");
    }

    /** A failure the store's retries try again: the marker kept changing under this node's conditional writes. */
    private static AerospikeException busy(LockKey key, String what) {
        return new AerospikeException(ResultCode.KEY_BUSY, "the marker of lock '" + key.name() + "' " + what);
    }

    /** Sets the status of every live holder of the marker to {@code ABORT}; {@code true} if any was marked. */
    boolean markAbort(LockKey key, long timeout) {
        Record marker = client.get(null, store.lockKey(key));
        if (!isMarker(marker) || entries(marker).isEmpty()) {
            return false;
        }
        BatchWritePolicy policy = store.updatePolicy(DO_NOT_CHANGE_TTL, null);
        List<BatchRecord> marks = new ArrayList<>();
        for (String token : entries(marker).keySet()) {
            marks.add(new BatchWrite(policy, holderKey(new LockHandle(key, token)),
                    new Operation[]{Operation.put(new Bin(STATUS, LockStatus.ABORT.name()))}));
        }
        client.operate(store.batchPolicy(timeout), marks);
        return marks.stream().anyMatch(mark -> mark.resultCode == ResultCode.OK);
    }

    /** The records of the marker's holders among {@code tokens} whose holder record lives, in one batch read. */
    List<LockRecord> live(LockKey key, Record marker, List<String> tokens, long timeout) {
        if (tokens.isEmpty()) {
            return List.of();
        }
        Key[] keys = new Key[tokens.size()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = holderKey(new LockHandle(key, tokens.get(i)));
        }
        Record[] records = client.get(store.batchPolicy(timeout), keys);
        List<LockRecord> live = new ArrayList<>();
        for (Record record : records) {
            if (record != null) {
                AerospikeLockStore.toRecord(key, record, marker.getLong(TOKEN), LockMode.valueOf(record.getString(MODE)))
                        .ifPresent(live::add);
            }
        }
        return live;
    }

    /**
     * Removes stale entries, or the whole marker when none of its entries lives: the idle records of this kind. A
     * marker changed since it was read is left for the next purge.
     *
     * @return 1 if the marker was deleted, else 0
     */
    int purge(LockKey key, Record marker, long timeout) {
        List<String> tokens = new ArrayList<>(entries(marker).keySet());
        List<String> dead = new ArrayList<>(tokens);
        for (LockRecord holder : live(key, marker, tokens, timeout)) {
            dead.remove(holder.ownerToken());
        }
        try {
            if (dead.size() == tokens.size()) {
                WritePolicy policy = store.writePolicy(RecordExistsAction.UPDATE, 0, null, timeout);
                policy.generationPolicy = GenerationPolicy.EXPECT_GEN_EQUAL;
                policy.generation = marker.generation;
                policy.durableDelete = store.durableDelete();
                return client.delete(policy, store.lockKey(key)) ? 1 : 0;
            }
            removeEntries(store.lockKey(key), marker, dead, timeout);
        } catch (AerospikeException e) {
            if (e.getResultCode() != ResultCode.GENERATION_ERROR && e.getResultCode() != ResultCode.KEY_NOT_FOUND_ERROR) {
                throw e;
            }
        }
        return 0;
    }

    private void removeEntries(Key lockKey, Record marker, List<String> tokens, long timeout) {
        if (tokens.isEmpty()) {
            return;
        }
        List<Value> keys = new ArrayList<>(tokens.size());
        tokens.forEach(token -> keys.add(Value.get(token)));
        WritePolicy policy = store.writePolicy(RecordExistsAction.UPDATE_ONLY, DO_NOT_CHANGE_TTL, null, timeout);
        policy.generationPolicy = GenerationPolicy.EXPECT_GEN_EQUAL;
        policy.generation = marker.generation;
        try {
            client.operate(policy, lockKey, MapOperation.removeByKeyList(HOLDERS, keys, MapReturnType.NONE));
        } catch (AerospikeException e) {
            // changed since it was read: the caller reads it again
            if (e.getResultCode() != ResultCode.GENERATION_ERROR && e.getResultCode() != ResultCode.KEY_NOT_FOUND_ERROR) {
                throw e;
            }
        }
    }

    /** The marker's entries: owner token to mode name. */
    @SuppressWarnings("unchecked")
    static Map<String, String> entries(Record marker) {
        Map<?, ?> entries = marker.getMap(HOLDERS);
        return entries == null ? Map.of() : (Map<String, String>) entries;
    }

    /**
     * The last result an operation returned for {@code bin}: the client gives a list when several operations of one
     * call returned a value for the same bin. 0 when there is none.
     */
    static long lastLong(Record record, String bin) {
        Object value = record == null ? null : record.getValue(bin);
        if (value instanceof List<?> results) {
            value = results.isEmpty() ? null : results.get(results.size() - 1);
        }
        return value == null ? 0 : ((Number) value).longValue();
    }
}
