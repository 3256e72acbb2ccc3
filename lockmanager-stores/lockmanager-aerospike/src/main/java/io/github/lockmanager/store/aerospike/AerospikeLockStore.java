package io.github.lockmanager.store.aerospike;

import com.aerospike.client.AerospikeException;
import com.aerospike.client.BatchRead;
import com.aerospike.client.BatchRecord;
import com.aerospike.client.BatchWrite;
import com.aerospike.client.IAerospikeClient;
import com.aerospike.client.Info;
import com.aerospike.client.Key;
import com.aerospike.client.Operation;
import com.aerospike.client.Record;
import com.aerospike.client.ResultCode;
import com.aerospike.client.cluster.Node;
import com.aerospike.client.exp.Exp;
import com.aerospike.client.exp.ExpOperation;
import com.aerospike.client.exp.ExpReadFlags;
import com.aerospike.client.exp.ExpWriteFlags;
import com.aerospike.client.exp.MapExp;
import com.aerospike.client.policy.BatchPolicy;
import com.aerospike.client.policy.BatchReadPolicy;
import com.aerospike.client.policy.BatchWritePolicy;
import com.aerospike.client.policy.CommitLevel;
import com.aerospike.client.policy.RecordExistsAction;
import com.aerospike.client.policy.ScanPolicy;
import com.aerospike.client.policy.WritePolicy;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.support.RetryPolicy;
import io.github.lockmanager.store.support.RetryPolicy.Failure;
import io.github.lockmanager.store.support.StoreBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import static io.github.lockmanager.store.aerospike.AerospikeExpressions.NOW;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.ABORT;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.FENCE;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.HOLDERS;

/**
 * Locks in Aerospike, one record per key ({@link AerospikeLayout}) that lists the key's holders in every
 * {@link io.github.lockmanager.LockMode}, keeps its fencing counter and its abort mark. Every decision is one
 * operation on that record, taken by the server against its own clock ({@link AerospikeExpressions}): nothing is
 * read and then written conditionally on what was read, so no other writer, and no record deleted and created
 * again, can come between. Writes commit to all replicas.
 *
 * <p>Round trips: acquire 1 in every mode (a refusal 2: the second names the holder); a hand-off between threads
 * of a node 1; release 1; renew and check 1 batch call per batch; abort 1; read 1; list one info call and a scan per
 * lock set, then one batch read. Leases end on the server's clock to the millisecond, not at a record's TTL: a
 * crashed holder's key is free once its lease has ended.
 *
 * <p>Fencing tokens: the counter moves by one per grant; a record created anew (a new key, or one idle for the
 * {@linkplain Builder#idleRecordRetention retention}, or after a restart of a namespace kept in memory) starts at
 * {@code 1000 *} the server's clock in ms, above every token of the key's earlier life as long as fewer than 1000
 * grants of a key fall in one millisecond on average and the server's clock does not go back by the retention.
 * The record's TTL is the retention plus the lease, from its last grant or renewal; a grant or renewal never
 * shortens it (a holder with a shorter lease beside one with a longer lease keeps the longer TTL, at one more round
 * trip).
 *
 * <p>Requires Aerospike server 7.0 or later and a namespace that accepts TTLs (its {@code nsup-period} is not 0, or
 * {@code allow-ttl-without-nsup} is true), which {@link #initialize()} checks; it logs whether the namespace is
 * strong-consistency: an available-first namespace (every Community Edition one) can grant one lock on both sides
 * of a network split. A key's holders share one record, so a key takes as many shared holders as fit in a record.
 *
 * <p>Every call, its retries included, ends within the {@linkplain Builder#operationTimeout operation timeout}:
 * each attempt's client timeout is what is left of it. The client is not closed by this store. Thread-safe.
 */
public final class AerospikeLockStore implements LockStore {
    private static final Logger log = LoggerFactory.getLogger(AerospikeLockStore.class);
    private static final int DO_NOT_CHANGE_TTL = -2;
    /** Names under which a call returns an expression's value; no bin of the record has them. */
    private static final String ABORT_ASKED = "aborted";
    private static final String WAS_LIVE = "waslive";

    private final IAerospikeClient client;
    private final String namespace;
    private final String setSuffix;
    private final Duration operationTimeout;
    private final Duration retention;
    private final RetryPolicy retries;

    private AerospikeLockStore(Builder builder) {
        this.client = builder.client;
        this.namespace = builder.namespace;
        this.setSuffix = builder.setSuffix;
        this.operationTimeout = builder.getOperationTimeout();
        this.retention = builder.getIdleRecordRetention();
        this.retries = builder.getRetries();
    }

    public static Builder builder(IAerospikeClient client) {
        return new Builder(client);
    }

    /**
     * Settings of an {@link AerospikeLockStore}; each setter checks its value and names it when refusing it. The
     * operation timeout is 50 ms at the least (each attempt's {@code totalTimeout} is what is left of it); the idle
     * record retention is how long a key's record, with its fencing counter, outlives its last grant or renewal
     * (beyond the lease), in whole seconds; retries default to 3 attempts, backoff 20 ms doubling to 500 ms.
     */
    public static final class Builder extends StoreBuilder<Builder> {
        private final IAerospikeClient client;
        private String namespace = "test";
        private String setSuffix = "locks";
        private List<String> farmIds = List.of();

        private Builder(IAerospikeClient client) {
            super(Duration.ofMillis(50), new RetryPolicy(3, Duration.ofMillis(20), Duration.ofMillis(500)));
            this.client = Require.notNull(client, "client");
        }

        /** The namespace of the lock sets; it must exist and accept TTLs. Default {@code test}. */
        public Builder namespace(String namespace) {
            if (namespace == null || namespace.isEmpty() || namespace.length() > 31) {
                throw new IllegalArgumentException("namespace must be 1 to 31 chars, was '" + namespace + "'");
            }
            this.namespace = namespace;
            return this;
        }

        /** The end of every lock set's name: {@code DC#<farm>#<suffix>}, {@code XDC#<suffix>}. Default {@code locks}. */
        public Builder setSuffix(String setSuffix) {
            Require.notEmpty(setSuffix, "setSuffix");
            this.setSuffix = setSuffix;
            return this;
        }

        /**
         * The farms whose {@code DC} locks this store will keep, so that their set names are checked against
         * Aerospike's 63-byte limit when the store is built rather than at the first lock.
         */
        public Builder farmIds(String... farmIds) {
            this.farmIds = List.of(farmIds);
            return this;
        }

        /** @throws IllegalArgumentException if a set name would exceed Aerospike's limit */
        public AerospikeLockStore build() {
            AerospikeLayout.checkBinNames();
            AerospikeLayout.checkSetName(AerospikeLayout.xdcSet(setSuffix));
            for (String farmId : farmIds) {
                AerospikeLayout.checkSetName(AerospikeLayout.dcSet(LockKey.requireId("farmId", farmId), setSuffix));
            }
            return new AerospikeLockStore(this);
        }
    }

    /**
     * Reads the namespace's configuration from a node (retried as any call: a node's pooled connection may have
     * broken since the last call) and refuses a namespace the store cannot keep its promises on.
     */
    @Override
    public void initialize() throws LockManagerException {
        List<String> namespaces = new ArrayList<>();
        AerospikeNamespace ns = retries.call("inspect Aerospike namespace '" + namespace + "'", operationTimeout,
                FAILURES, timeout -> {
                    Node node = client.getCluster().getRandomNode();
                    namespaces.clear();
                    namespaces.addAll(Arrays.asList(info(node, "namespaces").trim().split(";")));
                    return namespaces.contains(namespace) ? new AerospikeNamespace(namespace,
                            info(node, "namespace/" + namespace), info(node, "edition")) : null;
                });
        if (ns == null) {
            throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "Aerospike namespace '" + namespace
                    + "' does not exist on the cluster (it has " + namespaces + "); configure it on the server or"
                    + " choose one of those");
        }
        check(ns);
    }

    /** Refuses a namespace the store cannot keep its promises on, and says what kind of consistency it gives. */
    void check(AerospikeNamespace ns) throws LockManagerException {
        if (!ns.acceptsTtl()) {
            throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "Aerospike namespace '" + ns.name()
                    + "' rejects records with a TTL (nsup-period is 0): set nsup-period (for example 120) or "
                    + "allow-ttl-without-nsup true in its configuration");
        }
        if (ns.isStrongConsistency()) {
            log.info("Aerospike namespace '{}' is strong-consistency ({}): a lock is granted on one side of a split only",
                    ns.name(), ns.edition());
        } else {
            log.warn("Aerospike namespace '{}' is available-first, not strong-consistency ({}): after a network split "
                    + "both sides can grant the same lock until the cluster heals. Use a strong-consistency namespace "
                    + "(Enterprise Edition) where that matters", ns.name(), ns.edition());
        }
    }

    /**
     * One operation on the key's record: its filter grants (the request's own entry is there, or the predecessor's,
     * or no live holder conflicts), its writes move the fencing counter and put the entry, and it reads the holders
     * back. A refusal writes nothing and reads the holders once more to name one. Where the record keeps a longer
     * TTL than this grant would give it (another holder's longer lease), the filter refuses that too, and the grant
     * is made again keeping the TTL: one more round trip, so that no grant shortens another holder's record.
     */
    @Override
    public AcquireResult acquire(LockRequest request, Duration lease) throws LockManagerException {
        LockHandle handle = request.handle();
        Key key = lockKey(handle.key());
        int ttl = ttlSeconds(lease);
        Exp granted = AerospikeExpressions.granted(request, NOW);
        WritePolicy policy = writePolicy(ttl, Exp.and(granted, AerospikeExpressions.ttlAtMost(ttl)));
        WritePolicy keepingTtl = writePolicy(DO_NOT_CHANGE_TTL, granted);
        Operation[] ops = {
                ExpOperation.write(FENCE, Exp.build(AerospikeExpressions.nextFence(request)), ExpWriteFlags.EVAL_NO_FAIL),
                ExpOperation.write(HOLDERS, Exp.build(AerospikeExpressions.grantedHolders(request, lease,
                        entryTemplate(request, lease))), ExpWriteFlags.DEFAULT),
                Operation.get(HOLDERS), Operation.get(ABORT), readNow()};
        return retries.call("acquire lock '" + handle.key().name() + "' " + request.mode() + " in Aerospike",
                operationTimeout, FAILURES, timeout -> {
                    policy.totalTimeout = clientTimeout(timeout);
                    Record answer = operateUnlessFiltered(policy, key, ops);
                    if (answer == null) {
                        LockRecord holder = conflicting(request, readHolders(handle.key(), timeout, true));
                        if (holder != null) {
                            return AcquireResult.heldBy(holder);
                        }
                        keepingTtl.totalTimeout = clientTimeout(timeout);
                        answer = operateUnlessFiltered(keepingTtl, key, ops);
                    }
                    LockRecord mine = find(handle, AerospikeEntries.holders(handle.key(), answer, false));
                    if (mine != null) {
                        return AcquireResult.acquired(mine);
                    }
                    List<LockRecord> live = readHolders(handle.key(), timeout, true);
                    return AcquireResult.heldBy(live.isEmpty() ? null : live.get(0));
                });
    }

    /** A live holder that keeps {@code request} out: its mode conflicts, and it is not the request's own or its predecessor. */
    private static LockRecord conflicting(LockRequest request, List<LockRecord> live) {
        for (LockRecord holder : live) {
            if (holder.mode().conflictsWith(request.mode()) && !holder.handle().equals(request.handle())
                    && !holder.handle().equals(request.predecessor())) {
                return holder;
            }
        }
        return null;
    }

    /** An entry with the request's details; its tag, token and lock time are the server's to set. */
    private static List<Object> entryTemplate(LockRequest request, Duration lease) {
        return Arrays.asList(0L, 0L, request.nodeId(), request.threadName(), 0L, lease.toMillis());
    }

    private static LockRecord find(LockHandle handle, List<LockRecord> holders) {
        for (LockRecord holder : holders) {
            if (holder.handle().equals(handle)) {
                return holder;
            }
        }
        return null;
    }

    /** The record after {@code ops}, or {@code null} if the policy's filter refused the write. */
    private Record operateUnlessFiltered(WritePolicy policy, Key key, Operation... ops) {
        try {
            return client.operate(policy, key, ops);
        } catch (AerospikeException e) {
            if (e.getResultCode() == ResultCode.FILTERED_OUT) {
                return null;
            }
            throw e;
        }
    }

    /**
     * One batch call: each handle's entry, while live, gets a lease from now; answers whether an abort was asked.
     * Entries whose record keeps a longer TTL than this renewal would give (another holder's longer lease) are
     * renewed in a second batch call that keeps it.
     */
    @Override
    public Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) throws LockManagerException {
        int ttl = ttlSeconds(lease);
        List<BatchRecord> writes = renewals(handles, lease, ttl);
        return retries.call("renew " + handles.size() + " locks in Aerospike", operationTimeout, FAILURES, timeout -> {
            client.operate(batchPolicy(timeout), writes);
            List<LockHandle> again = new ArrayList<>();
            for (int i = 0; i < handles.size(); i++) {
                if (writes.get(i).resultCode == ResultCode.FILTERED_OUT) {
                    again.add(handles.get(i));
                }
            }
            Map<LockHandle, HoldState> answers = answers(handles, writes);
            if (!again.isEmpty()) {
                List<BatchRecord> keepingTtl = renewals(again, lease, DO_NOT_CHANGE_TTL);
                client.operate(batchPolicy(timeout), keepingTtl);
                answers.putAll(answers(again, keepingTtl));
            }
            return answers;
        });
    }

    /** The writes renewing {@code handles}; a TTL other than "keep" also refuses to shorten a record's TTL. */
    private List<BatchRecord> renewals(List<LockHandle> handles, Duration lease, int ttl) {
        List<BatchRecord> writes = new ArrayList<>(handles.size());
        for (LockHandle handle : handles) {
            BatchWritePolicy policy = client.copyBatchWritePolicyDefault();
            policy.recordExistsAction = RecordExistsAction.UPDATE_ONLY;
            policy.commitLevel = CommitLevel.COMMIT_ALL;
            policy.expiration = ttl;
            Exp live = AerospikeExpressions.live(handle.ownerToken(), NOW, Exp.mapBin(HOLDERS));
            policy.filterExp = Exp.build(ttl == DO_NOT_CHANGE_TTL ? live : Exp.and(live, AerospikeExpressions.ttlAtMost(ttl)));
            writes.add(new BatchWrite(policy, lockKey(handle.key()), new Operation[]{
                    ExpOperation.write(HOLDERS, Exp.build(AerospikeExpressions.renewedHolders(handle.ownerToken(), lease)),
                            ExpWriteFlags.DEFAULT),
                    ExpOperation.read(ABORT_ASKED, Exp.build(AerospikeExpressions.abortAsked(handle)),
                            ExpReadFlags.DEFAULT)}));
        }
        return writes;
    }

    /** One batch read: whether each handle's entry is live, and whether an abort was asked. */
    @Override
    public Map<LockHandle, HoldState> check(List<LockHandle> handles) throws LockManagerException {
        List<BatchRecord> reads = new ArrayList<>(handles.size());
        for (LockHandle handle : handles) {
            BatchReadPolicy policy = new BatchReadPolicy();
            policy.filterExp = Exp.build(AerospikeExpressions.live(handle.ownerToken(), NOW, Exp.mapBin(HOLDERS)));
            reads.add(new BatchRead(policy, lockKey(handle.key()), new Operation[]{
                    ExpOperation.read(ABORT_ASKED, Exp.build(AerospikeExpressions.abortAsked(handle)),
                            ExpReadFlags.DEFAULT)}));
        }
        return retries.call("check " + handles.size() + " locks in Aerospike", operationTimeout, FAILURES, timeout -> {
            client.operate(batchPolicy(timeout), reads);
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

    /**
     * One operation: removes the handle's entry if it is there. {@code true} if it was live; a repeated call after an
     * unanswered one that may have applied counts the entry it finds gone as released by that one.
     */
    @Override
    public boolean release(LockHandle handle) throws LockManagerException {
        Key key = lockKey(handle.key());
        WritePolicy policy = writePolicy(DO_NOT_CHANGE_TTL,
                AerospikeExpressions.present(handle.ownerToken(), Exp.mapBin(HOLDERS)));
        Operation[] ops = {
                ExpOperation.read(WAS_LIVE, Exp.build(AerospikeExpressions.live(handle.ownerToken(), NOW,
                        Exp.mapBin(HOLDERS))), ExpReadFlags.DEFAULT),
                ExpOperation.write(HOLDERS, Exp.build(MapExp.removeByKey(Exp.val(handle.ownerToken()),
                        Exp.mapBin(HOLDERS))), ExpWriteFlags.DEFAULT)};
        boolean[] inDoubt = {false};
        return retries.call("release lock '" + handle.key().name() + "' in Aerospike", operationTimeout, FAILURES,
                timeout -> {
                    policy.totalTimeout = clientTimeout(timeout);
                    try {
                        Record released = client.operate(policy, key, ops);
                        return AerospikeEntries.isTrue(released, WAS_LIVE);
                    } catch (AerospikeException e) {
                        if (e.getResultCode() == ResultCode.FILTERED_OUT
                                || e.getResultCode() == ResultCode.KEY_NOT_FOUND_ERROR) {
                            return inDoubt[0];
                        }
                        inDoubt[0] |= isTransient(e);
                        throw e;
                    }
                });
    }

    @Override
    public Optional<LockRecord> read(LockKey key) throws LockManagerException {
        return retries.call("read lock '" + key.name() + "' in Aerospike", operationTimeout, FAILURES,
                timeout -> readHolders(key, timeout, true).stream().findFirst());
    }

    /** Every holder of the key, those whose lease ended included, until the next grant cleans them up. */
    @Override
    public List<LockRecord> inspect(LockKey key) throws LockManagerException {
        return retries.call("inspect lock '" + key.name() + "' in Aerospike", operationTimeout, FAILURES,
                timeout -> readHolders(key, timeout, false));
    }

    /** The key's holders, read with the server's clock in one operation. */
    private List<LockRecord> readHolders(LockKey key, long timeout, boolean liveOnly) {
        WritePolicy policy = client.copyWritePolicyDefault();
        policy.totalTimeout = clientTimeout(timeout);
        try {
            Record record = client.operate(policy, lockKey(key), Operation.get(HOLDERS), Operation.get(ABORT), readNow());
            return AerospikeEntries.holders(key, record, liveOnly);
        } catch (AerospikeException e) {
            if (e.getResultCode() == ResultCode.KEY_NOT_FOUND_ERROR) {
                return List.of();
            }
            throw e;
        }
    }

    /** One scan per lock set for the keys with a live holder, then one batch read of their holders and clock. */
    @Override
    public List<LockRecord> list() throws LockManagerException {
        return retries.call("list locks in Aerospike", operationTimeout, FAILURES, timeout -> {
            List<LockKey> keys = new ArrayList<>();
            List<BatchRecord> reads = new ArrayList<>();
            ScanPolicy policy = client.copyScanPolicyDefault();
            policy.totalTimeout = clientTimeout(timeout);
            policy.includeBinData = false;
            policy.filterExp = Exp.build(AerospikeExpressions.anyLive(NOW, AerospikeExpressions.HOLDERS_OR_EMPTY));
            for (String set : lockSets()) {
                client.scanAll(policy, namespace, set, (key, record) -> {
                    LockKey lockKey = key.userKey == null ? null
                            : AerospikeLayout.lockKey(set, setSuffix, key.userKey.toString());
                    if (lockKey != null) {
                        synchronized (keys) {
                            keys.add(lockKey);
                            reads.add(new BatchRead(key, new Operation[]{Operation.get(HOLDERS), Operation.get(ABORT),
                                    readNow()}));
                        }
                    }
                });
            }
            List<LockRecord> records = new ArrayList<>();
            if (!reads.isEmpty()) {
                client.operate(batchPolicy(timeout), reads);
                for (int i = 0; i < reads.size(); i++) {
                    records.addAll(AerospikeEntries.holders(keys.get(i), reads.get(i).record, true));
                }
            }
            return records;
        });
    }

    /**
     * One info command to {@code node}. After a restart of the server every connection the node's pool kept is
     * broken, and each failure discards one: the command is tried on each pooled connection and one new one.
     */
    private static String info(Node node, String command) {
        for (int left = node.getConnectionStats().inPool; ; left--) {
            try {
                return Info.request(node, command);
            } catch (AerospikeException.Connection e) {
                if (left <= 0) {
                    throw e;
                }
            }
        }
    }

    /** The names of this store's lock sets that exist in the namespace, read from the server. */
    private Set<String> lockSets() {
        Set<String> sets = new TreeSet<>();
        for (Node node : client.getNodes()) {
            for (String entry : info(node, "sets/" + namespace).split(";")) {
                String set = AerospikeNamespace.parse(entry, ':').get("set");
                if (set != null && (set.equals(AerospikeLayout.xdcSet(setSuffix))
                        || (set.startsWith("DC#") && set.endsWith("#" + setSuffix)))) {
                    sets.add(set);
                }
            }
        }
        return sets;
    }

    /**
     * One operation, while the key has a live holder: the abort mark becomes the last token given, which asks every
     * holder granted so far (and no later one) to abort.
     */
    @Override
    public boolean markAbort(LockKey key) throws LockManagerException {
        WritePolicy policy = writePolicy(DO_NOT_CHANGE_TTL,
                AerospikeExpressions.anyLive(NOW, AerospikeExpressions.HOLDERS_OR_EMPTY));
        policy.recordExistsAction = RecordExistsAction.UPDATE_ONLY;
        return retries.call("abort lock '" + key.name() + "' in Aerospike", operationTimeout, FAILURES, timeout -> {
            policy.totalTimeout = clientTimeout(timeout);
            try {
                client.operate(policy, lockKey(key),
                        ExpOperation.write(ABORT, Exp.build(Exp.intBin(FENCE)), ExpWriteFlags.DEFAULT));
                return true;
            } catch (AerospikeException e) {
                if (e.getResultCode() == ResultCode.FILTERED_OUT || e.getResultCode() == ResultCode.KEY_NOT_FOUND_ERROR) {
                    return false;
                }
                throw e;
            }
        });
    }

    /**
     * Nothing to do: a key's record expires by its TTL, the retention after its last grant or renewal, and each grant
     * removes the entries whose lease ended.
     */
    @Override
    public int purgeIdleRecords() {
        return 0;
    }

    /** Every mode: a key's holders share its record, and one operation decides by all of them. */
    @Override
    public boolean supportsModes() {
        return true;
    }

    /** A request naming its predecessor takes the predecessor's entry over in the operation that grants it. */
    @Override
    public boolean supportsHandOff() {
        return true;
    }

    @Override
    public void close() {
        // the client belongs to the caller
    }

    @Override
    public String toString() {
        return "AerospikeLockStore[" + namespace + ", sets *#" + setSuffix + "]";
    }

    IAerospikeClient client() {
        return client;
    }

    /** Runs {@code call} as every call of this store runs: within the operation timeout, retried when transient. */
    <T> T call(String what, RetryPolicy.Attempt<T> call) throws LockManagerException {
        return retries.call(what + " in Aerospike", operationTimeout, FAILURES, call);
    }

    Key lockKey(LockKey key) {
        return new Key(namespace, AerospikeLayout.checkSetName(AerospikeLayout.setName(key, setSuffix)),
                AerospikeLayout.lockUserKey(key));
    }

    private int ttlSeconds(Duration lease) {
        return AerospikeLayout.ttlSeconds(retention, lease);
    }

    private static Operation readNow() {
        return ExpOperation.read(AerospikeEntries.NOW, Exp.build(NOW), ExpReadFlags.DEFAULT);
    }

    private static int clientTimeout(long timeout) {
        return (int) Math.min(Integer.MAX_VALUE, timeout);
    }

    /** A write committed to every replica, creating the record if absent, with the given TTL and filter. */
    private WritePolicy writePolicy(int expiration, Exp filter) {
        WritePolicy policy = client.copyWritePolicyDefault();
        policy.recordExistsAction = RecordExistsAction.UPDATE;
        policy.commitLevel = CommitLevel.COMMIT_ALL;
        policy.expiration = expiration;
        policy.sendKey = true;
        policy.filterExp = Exp.build(filter);
        policy.failOnFilteredOut = true;
        return policy;
    }

    private BatchPolicy batchPolicy(long timeout) {
        BatchPolicy policy = client.copyBatchPolicyDefault();
        policy.totalTimeout = clientTimeout(timeout);
        return policy;
    }

    private static final RetryPolicy.Classifier FAILURES = e -> isTransient(e) ? Failure.TRANSIENT : Failure.PERMANENT;

    /**
     * Timeouts, connection failures, writes in doubt, and what a server says while it starts, migrates or is
     * overloaded: a node not reachable, a partition not available yet, a hot key, a busy device.
     */
    static boolean isTransient(Exception e) {
        if (e instanceof AerospikeException.Timeout || e instanceof AerospikeException.Connection) {
            return true;
        }
        if (!(e instanceof AerospikeException)) {
            return false;
        }
        int code = ((AerospikeException) e).getResultCode();
        return ((AerospikeException) e).getInDoubt() || code == ResultCode.TIMEOUT
                || code == ResultCode.SERVER_NOT_AVAILABLE || code == ResultCode.KEY_BUSY
                || code == ResultCode.DEVICE_OVERLOAD || code == ResultCode.NO_MORE_CONNECTIONS
                || code == ResultCode.PARTITION_UNAVAILABLE || code == ResultCode.INVALID_NODE_ERROR;
    }
}
