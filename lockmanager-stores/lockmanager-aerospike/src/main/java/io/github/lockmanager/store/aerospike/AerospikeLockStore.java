package io.github.lockmanager.store.aerospike;

import io.github.lockmanager.Require;
import com.aerospike.client.AerospikeException;
import com.aerospike.client.BatchRead;
import com.aerospike.client.BatchRecord;
import com.aerospike.client.BatchWrite;
import com.aerospike.client.Bin;
import com.aerospike.client.IAerospikeClient;
import com.aerospike.client.Info;
import com.aerospike.client.Key;
import com.aerospike.client.Operation;
import com.aerospike.client.Record;
import com.aerospike.client.ResultCode;
import com.aerospike.client.cluster.Node;
import com.aerospike.client.exp.Exp;
import com.aerospike.client.exp.ExpOperation;
import com.aerospike.client.exp.ExpWriteFlags;
import com.aerospike.client.exp.Expression;
import com.aerospike.client.policy.BatchPolicy;
import com.aerospike.client.policy.BatchWritePolicy;
import com.aerospike.client.policy.CommitLevel;
import com.aerospike.client.policy.RecordExistsAction;
import com.aerospike.client.policy.ScanPolicy;
import com.aerospike.client.policy.WritePolicy;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.support.RetryPolicy;
import io.github.lockmanager.store.support.StoreBuilder;
import io.github.lockmanager.store.support.RetryPolicy.Failure;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static io.github.lockmanager.store.aerospike.AerospikeLayout.FENCE;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.LEASE;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.LOCK_TIME;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.NODE;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.OWNER;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.STATUS;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.THREAD;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.TOKEN;

/**
 * Lock records in Aerospike: a create-only write with a record TTL per lock, conditional writes (filter
 * expressions on the owner token) for everything after. Layout: {@link AerospikeLayout}. Writes commit to all
 * replicas. Requires Aerospike server 6.0 or later (batch writes) and a namespace that accepts TTLs (its
 * {@code nsup-period} is not 0, or {@code allow-ttl-without-nsup} is true); {@link #initialize()} checks both
 * the namespace and this.
 *
 * <p>Round trips: acquire 3 (create the lock record; move the key's fencing counter; stamp the token into the
 * lock record, conditional on the owner), because Aerospike cannot change two records in one atomic command and
 * the counter must outlive the lock record's TTL. The counter record expires the
 * {@linkplain Builder#idleRecordRetention retention} after the key's last acquisition, so the namespace holds the
 * keys in use; renew and check 1 batch call per batch; release 1; abort 1; isLocked 1; getLocks one info call and a
 * scan per lock set, plus a batch read per key held in other modes.
 *
 * <p>Every {@link io.github.lockmanager.LockMode}: a key held in modes other than exclusive has a marker record that
 * lists its holders, and each holder a holder record with its own TTL ({@link AerospikeHolders}). A holder joining
 * holders in compatible modes takes 2 round trips (its holder record; the marker's conditional update), the first
 * holder of a key 4 (plus moving the counter and stamping the marker); a holder's release is 1 batch call, the last
 * holder's 2; renewals and abort polls ride in the same batches as exclusive locks'. An exclusive acquisition that
 * finds a marker whose holders have all ended takes it over (a batch read of the holder records, a write conditional
 * on the marker's generation). Markers do not expire: the last holder deletes its key's marker, and
 * {@link #purgeIdleRecords()} deletes markers whose last holder crashed (one scan of the lock sets).
 *
 * <p>Leases are record TTLs measured by the server, in whole seconds: the TTL is the lease rounded up plus one
 * second, so a record never expires before its lease. The server counts expiry in whole seconds, so a crashed
 * node's lock is free at the latest the lease rounded up to whole seconds plus two seconds after its last
 * renewal (a 1.5 s lease: at most 4 s, that is 2.5 s after the lease).
 *
 * <p>{@link #initialize()} refuses a namespace whose records do not survive a restart (its fencing counters
 * would start again from 1) unless {@link Builder#allowVolatileNamespace(boolean)} accepts that, and refuses
 * {@link Builder#durableDelete(boolean)} on Community Edition, which rejects durable deletes. It logs whether
 * the namespace is strong-consistency: an available-first namespace (every Community Edition one) can grant one
 * lock on both sides of a network split.
 *
 * <p>Every call, its retries included, ends within the {@linkplain Builder#operationTimeout operation timeout}:
 * each attempt's client timeout is what is left of it. The client is not closed by this store. Thread-safe.
 */
public final class AerospikeLockStore implements LockStore {
    private static final Logger log = LoggerFactory.getLogger(AerospikeLockStore.class);
    private static final int DO_NOT_CHANGE_TTL = -2;

    private final IAerospikeClient client;
    private final String namespace;
    private final String setSuffix;
    private final boolean durableDelete;
    private final boolean allowVolatileNamespace;
    private final Duration operationTimeout;
    private final int counterTtlSeconds;
    private final RetryPolicy retries;
    private final AerospikeHolders holders;

    private AerospikeLockStore(Builder builder) {
        this.client = builder.client;
        this.namespace = builder.namespace;
        this.setSuffix = builder.setSuffix;
        this.durableDelete = builder.durableDelete;
        this.allowVolatileNamespace = builder.allowVolatileNamespace;
        this.operationTimeout = builder.getOperationTimeout();
        this.counterTtlSeconds = (int) builder.getIdleRecordRetention().toSeconds();
        this.retries = builder.getRetries();
        this.holders = new AerospikeHolders(this, client);
    }

    public static Builder builder(IAerospikeClient client) {
        return new Builder(client);
    }

    /**
     * Settings of an {@link AerospikeLockStore}; each setter checks its value and names it when refusing it. The
     * operation timeout is 50 ms at the least (each attempt's {@code totalTimeout} is what is left of it); the idle
     * record retention is the TTL, in whole seconds, of a key's fencing counter record after its last acquisition,
     * after which the server expires it; retries default to 3 attempts, backoff 20 ms doubling to 500 ms.
     */
    public static final class Builder extends StoreBuilder<Builder> {
        private final IAerospikeClient client;
        private String namespace = "test";
        private String setSuffix = "locks";
        private List<String> farmIds = List.of();
        private boolean durableDelete;
        private boolean allowVolatileNamespace;

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

        /**
         * Deletes leave a tombstone, so a released lock cannot come back after a cold restart. Enterprise Edition
         * only: {@link AerospikeLockStore#initialize()} refuses it on Community Edition. Default false.
         */
        public Builder durableDelete(boolean durableDelete) {
            this.durableDelete = durableDelete;
            return this;
        }

        /**
         * Accepts a namespace kept in memory only. Its records, the fencing counters among them, are gone after a
         * restart of its nodes, so fencing tokens start again from 1 and a resource that checks them would refuse
         * the new holders. Default false: {@link AerospikeLockStore#initialize()} refuses such a namespace.
         */
        public Builder allowVolatileNamespace(boolean allowVolatileNamespace) {
            this.allowVolatileNamespace = allowVolatileNamespace;
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

    @Override
    public void initialize() throws LockManagerException {
        Node node;
        try {
            node = client.getCluster().getRandomNode();
        } catch (AerospikeException e) {
            throw new LockManagerException(ErrorCode.CONNECTION_ERROR, "no Aerospike node is reachable: " + e, e);
        }
        AerospikeNamespace ns;
        try {
            List<String> namespaces = Arrays.asList(Info.request(node, "namespaces").trim().split(";"));
            if (!namespaces.contains(namespace)) {
                throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "Aerospike namespace '" + namespace
                        + "' does not exist on the cluster (it has " + namespaces + "); configure it on the server or"
                        + " choose one of those");
            }
            ns = new AerospikeNamespace(namespace, Info.request(node, "namespace/" + namespace),
                    Info.request(node, "edition"));
        } catch (AerospikeException e) {
            throw new LockManagerException(ErrorCode.CONNECTION_ERROR, "could not inspect Aerospike namespace '"
                    + namespace + "': " + e, e);
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
        if (!ns.isPersistent() && !allowVolatileNamespace) {
            throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "Aerospike namespace '" + ns.name()
                    + "' keeps its records in memory only (storage-engine " + ns.storageEngine() + "): after a restart "
                    + "its fencing counters are gone and tokens start again from 1. Give it persistent storage, or "
                    + "accept that with allowVolatileNamespace(true)");
        }
        if (durableDelete && !ns.supportsDurableDelete()) {
            throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "durableDelete(true) needs Aerospike "
                    + "Enterprise Edition, but the server is " + ns.edition() + ", which would refuse every release; "
                    + "turn durableDelete off");
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

    @Override
    public AcquireResult acquire(LockRequest request, Duration lease) throws LockManagerException {
        LockHandle handle = request.handle();
        if (request.mode() != LockMode.EXCLUSIVE) {
            return retries.call("acquire lock '" + handle.key().name() + "' " + request.mode() + " in Aerospike",
                    operationTimeout, FAILURES, timeout -> holders.acquire(request, lease, timeout));
        }
        Key lockKey = lockKey(handle.key());
        return retries.call("acquire lock '" + handle.key().name() + "' in Aerospike", operationTimeout, FAILURES, timeout -> {
            try {
                client.operate(writePolicy(RecordExistsAction.CREATE_ONLY, AerospikeLayout.ttlSeconds(lease), null, timeout),
                        lockKey, recordBins(request, lease, System.currentTimeMillis()));
            } catch (AerospikeException e) {
                // exists, or maybe written: the record says whose it is, this very acquisition's included
                boolean exists = e.getResultCode() == ResultCode.KEY_EXISTS_ERROR;
                if (!exists && !isTransient(e)) {
                    throw e;
                }
                Record record = client.get(null, lockKey);
                if (AerospikeHolders.isMarker(record)) {
                    Optional<AcquireResult> refused = holders.takeOver(request, lease, record, timeout);
                    if (refused.isPresent()) {
                        return refused.get();
                    }
                } else {
                    Optional<LockRecord> current = toRecord(handle.key(), record);
                    if (current.isEmpty() || !current.get().handle().equals(handle)) {
                        if (exists) {
                            return AcquireResult.heldBy(current.orElse(null));
                        }
                        throw e;
                    }
                    if (current.get().fencingToken() > 0) {
                        return AcquireResult.acquired(current.get());
                    }
                }
            }
            long token = nextFencingToken(handle.key(), timeout);
            try {
                Record stamped = client.operate(writePolicy(RecordExistsAction.UPDATE_ONLY, DO_NOT_CHANGE_TTL,
                        ownedBy(handle), timeout), lockKey, Operation.put(new Bin(TOKEN, token)), Operation.get());
                return AcquireResult.acquired(toRecord(handle.key(), stamped).orElseThrow());
            } catch (AerospikeException e) {
                if (e.getResultCode() == ResultCode.FILTERED_OUT || e.getResultCode() == ResultCode.KEY_NOT_FOUND_ERROR) {
                    // the lease ran out between the create and the stamp: the lock is no longer ours
                    return AcquireResult.heldBy(readLive(handle.key(), timeout).orElse(null));
                }
                throw e;
            }
        });
    }

    /** The bins of a new lock or holder record for {@code request}, its token still 0, then {@code more}. */
    Operation[] recordBins(LockRequest request, Duration lease, long lockTime, Operation... more) {
        Operation[] bins = Arrays.copyOf(new Operation[]{
                Operation.put(new Bin(OWNER, request.handle().ownerToken())),
                Operation.put(new Bin(NODE, request.nodeId())),
                Operation.put(new Bin(THREAD, request.threadName())),
                Operation.put(new Bin(LOCK_TIME, lockTime)),
                Operation.put(new Bin(LEASE, lease.toMillis())),
                Operation.put(new Bin(STATUS, LockStatus.RUNNING.name())),
                Operation.put(new Bin(TOKEN, 0L))}, 7 + more.length);
        System.arraycopy(more, 0, bins, 7, more.length);
        return bins;
    }

    /**
     * Moves the key's fencing counter and returns its new value. The counter record lives for the idle record
     * retention after the key's last acquisition. One created now (a new key, or one whose counter expired) starts
     * at {@code 1000 * now} in ms, above every token of its earlier life: each token stays below 1000 times the
     * time of the acquisition that took it plus one ms, since fewer than 1000 acquisitions of a key fit in a ms.
     */
    long nextFencingToken(LockKey key, long timeout) {
        Expression next = Exp.build(Exp.cond(Exp.binExists(FENCE), Exp.add(Exp.intBin(FENCE), Exp.val(1L)),
                Exp.val(1000 * System.currentTimeMillis())));
        Record counter = client.operate(writePolicy(RecordExistsAction.UPDATE, counterTtlSeconds, null, timeout),
                new Key(namespace, set(key), AerospikeLayout.counterUserKey(key)),
                ExpOperation.write(FENCE, next, ExpWriteFlags.DEFAULT), Operation.get(FENCE));
        return counter.getLong(FENCE);
    }

    @Override
    public Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) throws LockManagerException {
        int ttl = AerospikeLayout.ttlSeconds(lease);
        return retries.call("renew " + handles.size() + " locks in Aerospike", operationTimeout, FAILURES, timeout -> {
            List<BatchRecord> writes = new ArrayList<>(handles.size());
            for (LockHandle handle : handles) {
                writes.add(new BatchWrite(updatePolicy(ttl, ownedBy(handle)), recordKey(handle),
                        new Operation[]{Operation.touch(), Operation.put(new Bin(LEASE, lease.toMillis())),
                                Operation.get(STATUS)}));
            }
            client.operate(batchPolicy(timeout), writes);
            Map<LockHandle, HoldState> answers = new LinkedHashMap<>();
            for (int i = 0; i < handles.size(); i++) {
                HoldState state = answer(writes.get(i));
                if (state != null) {
                    answers.put(handles.get(i), forgetIfLost(handles.get(i), state));
                }
            }
            return answers;
        });
    }

    /**
     * The answer of one renewal: only "not found" and an owner filter that failed mean the lock is lost; any other
     * error leaves the lock unanswered ({@code null}), so that its lease counts as unconfirmed and it is asked again.
     */
    static HoldState answer(BatchRecord result) {
        switch (result.resultCode) {
            case ResultCode.OK:
                return HoldState.of(true, LockStatus.ABORT.name().equals(result.record.getString(STATUS)));
            case ResultCode.FILTERED_OUT:
            case ResultCode.KEY_NOT_FOUND_ERROR:
                return HoldState.LOST;
            default:
                return null;
        }
    }

    /** The answer of one abort poll, by the same rule as {@link #answer}: a read error is no answer. */
    static HoldState checked(LockHandle handle, BatchRead read) {
        if (read.resultCode == ResultCode.KEY_NOT_FOUND_ERROR) {
            return HoldState.LOST;
        }
        if (read.resultCode != ResultCode.OK || read.record == null) {
            return null;
        }
        return HoldState.of(handle.ownerToken().equals(read.record.getString(OWNER)),
                LockStatus.ABORT.name().equals(read.record.getString(STATUS)));
    }

    @Override
    public Map<LockHandle, HoldState> check(List<LockHandle> handles) throws LockManagerException {
        return retries.call("check " + handles.size() + " locks in Aerospike", operationTimeout, FAILURES, timeout -> {
            List<BatchRead> reads = new ArrayList<>(handles.size());
            for (LockHandle handle : handles) {
                reads.add(new BatchRead(recordKey(handle), new String[]{OWNER, STATUS}));
            }
            client.get(batchPolicy(timeout), reads);
            Map<LockHandle, HoldState> answers = new LinkedHashMap<>();
            for (int i = 0; i < handles.size(); i++) {
                HoldState state = checked(handles.get(i), reads.get(i));
                if (state != null) {
                    answers.put(handles.get(i), forgetIfLost(handles.get(i), state));
                }
            }
            return answers;
        });
    }

    @Override
    public boolean release(LockHandle handle) throws LockManagerException {
        if (holders.holds(handle)) {
            boolean[] retried = {false};
            return retries.call("release lock '" + handle.key().name() + "' in Aerospike", operationTimeout, FAILURES,
                    timeout -> {
                        try {
                            return holders.release(handle, timeout, retried[0]);
                        } finally {
                            retried[0] = true;
                        }
                    });
        }
        Key lockKey = lockKey(handle.key());
        return retries.call("release lock '" + handle.key().name() + "' in Aerospike", operationTimeout, FAILURES, timeout -> {
            WritePolicy policy = writePolicy(RecordExistsAction.UPDATE, 0, ownedBy(handle), timeout);
            policy.durableDelete = durableDelete;
            try {
                return client.delete(policy, lockKey);
            } catch (AerospikeException e) {
                if (e.getResultCode() == ResultCode.FILTERED_OUT) {
                    // another owner's, or a marker: the handle may be a holder in another mode that this store did not
                    // take (a force-release from another node), whose record is its holder record
                    return holders.release(handle, timeout, false);
                }
                if (isTransient(e)) {
                    // the delete may have applied: if the record is no longer ours, it is released either way
                    Record current = client.get(null, lockKey, OWNER);
                    if (current == null || !handle.ownerToken().equals(current.getString(OWNER))) {
                        return true;
                    }
                }
                throw e;
            }
        });
    }

    @Override
    public Optional<LockRecord> read(LockKey key) throws LockManagerException {
        return retries.call("read lock '" + key.name() + "' in Aerospike", operationTimeout, FAILURES,
                timeout -> readLive(key, timeout));
    }

    /** The key's exclusive holder, or one of its live holders in other modes. */
    Optional<LockRecord> readLive(LockKey key, long timeout) {
        Record record = client.get(null, lockKey(key));
        if (!AerospikeHolders.isMarker(record)) {
            return toRecord(key, record);
        }
        return holders.live(key, record, new ArrayList<>(AerospikeHolders.entries(record).keySet()), timeout).stream()
                .findFirst();
    }

    @Override
    public List<LockRecord> list() throws LockManagerException {
        return retries.call("list locks in Aerospike", operationTimeout, FAILURES, timeout -> {
            List<LockRecord> records = new ArrayList<>();
            Map<LockKey, Record> markers = new LinkedHashMap<>();
            scanLocks(null, timeout).forEach((key, record) -> {
                if (AerospikeHolders.isMarker(record)) {
                    markers.put(key, record);
                } else {
                    toRecord(key, record).ifPresent(records::add);
                }
            });
            markers.forEach((key, marker) -> records.addAll(holders.live(key, marker,
                    new ArrayList<>(AerospikeHolders.entries(marker).keySet()), timeout)));
            return records;
        });
    }

    /** The lock records (exclusive and markers) of every lock set that pass {@code filter}, by their lock keys. */
    private Map<LockKey, Record> scanLocks(Expression filter, long timeout) {
        Map<LockKey, Record> found = Collections.synchronizedMap(new LinkedHashMap<>());
        ScanPolicy policy = client.copyScanPolicyDefault();
        policy.totalTimeout = (int) Math.min(Integer.MAX_VALUE, timeout);
        policy.filterExp = filter;
        for (String set : lockSets()) {
            client.scanAll(policy, namespace, set, (key, record) -> {
                if (key.userKey == null || !AerospikeLayout.isLockUserKey(key.userKey.toString())) {
                    return;
                }
                LockKey lockKey = AerospikeLayout.lockKey(set, setSuffix, key.userKey.toString());
                if (lockKey != null) {
                    found.put(lockKey, record);
                }
            });
        }
        return new LinkedHashMap<>(found);
    }

    /** The names of this store's lock sets that exist in the namespace, read from the server. */
    private Set<String> lockSets() {
        Set<String> sets = new java.util.TreeSet<>();
        for (Node node : client.getNodes()) {
            for (String entry : Info.request(node, "sets/" + namespace).split(";")) {
                String set = AerospikeNamespace.parse(entry, ':').get("set");
                if (set != null && (set.equals(AerospikeLayout.xdcSet(setSuffix))
                        || (set.startsWith("DC#") && set.endsWith("#" + setSuffix)))) {
                    sets.add(set);
                }
            }
        }
        return sets;
    }

    @Override
    public boolean markAbort(LockKey key) throws LockManagerException {
        return retries.call("abort lock '" + key.name() + "' in Aerospike", operationTimeout, FAILURES, timeout -> {
            Expression exclusive = Exp.build(Exp.not(AerospikeHolders.IS_MARKER));
            try {
                client.operate(writePolicy(RecordExistsAction.UPDATE_ONLY, DO_NOT_CHANGE_TTL, exclusive, timeout),
                        lockKey(key), Operation.put(new Bin(STATUS, LockStatus.ABORT.name())));
                return true;
            } catch (AerospikeException e) {
                if (e.getResultCode() == ResultCode.KEY_NOT_FOUND_ERROR) {
                    return false;
                }
                if (e.getResultCode() == ResultCode.FILTERED_OUT) {
                    return holders.markAbort(key, timeout);
                }
                throw e;
            }
        });
    }

    /**
     * Deletes the markers none of whose holders lives any more (their last holder crashed) and removes stale entries
     * from the others, with one scan of the lock sets for markers. Exclusive lock records and fencing counters expire
     * by their TTL and need nothing.
     */
    @Override
    public int purgeIdleRecords() throws LockManagerException {
        return retries.call("purge idle records in Aerospike", operationTimeout, FAILURES, timeout -> {
            int deleted = 0;
            for (Map.Entry<LockKey, Record> marker : scanLocks(Exp.build(AerospikeHolders.IS_MARKER), timeout).entrySet()) {
                deleted += holders.purge(marker.getKey(), marker.getValue(), timeout);
            }
            return deleted;
        });
    }

    /** Shared and intention holders keep a holder record each, joined in the key's marker ({@link AerospikeHolders}). */
    @Override
    public boolean supportsModes() {
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

    private String set(LockKey key) {
        return AerospikeLayout.checkSetName(AerospikeLayout.setName(key, setSuffix));
    }

    Key lockKey(LockKey key) {
        return recordKey(key, AerospikeLayout.lockUserKey(key));
    }

    /** The key of a record of {@code key}'s set. */
    Key recordKey(LockKey key, String userKey) {
        return new Key(namespace, set(key), userKey);
    }

    /** Where a handle's lease lives: its holder record if it holds in another mode than exclusive. */
    private Key recordKey(LockHandle handle) {
        return holders.holds(handle) ? holders.holderKey(handle) : lockKey(handle.key());
    }

    private HoldState forgetIfLost(LockHandle handle, HoldState state) {
        if (state == HoldState.LOST) {
            holders.forget(handle);
        }
        return state;
    }

    boolean durableDelete() {
        return durableDelete;
    }

    static Expression ownedBy(LockHandle handle) {
        return Exp.build(Exp.eq(Exp.stringBin(OWNER), Exp.val(handle.ownerToken())));
    }

    WritePolicy writePolicy(RecordExistsAction action, int expiration, Expression filter, long timeout) {
        WritePolicy policy = client.copyWritePolicyDefault();
        policy.totalTimeout = (int) Math.min(Integer.MAX_VALUE, timeout);
        policy.recordExistsAction = action;
        policy.commitLevel = CommitLevel.COMMIT_ALL;
        policy.expiration = expiration;
        policy.sendKey = true;
        policy.filterExp = filter;
        policy.failOnFilteredOut = filter != null;
        return policy;
    }

    /** The policy of a batch write to an existing record: {@code expiration} as for a write, committed to all replicas. */
    BatchWritePolicy updatePolicy(int expiration, Expression filter) {
        BatchWritePolicy policy = client.copyBatchWritePolicyDefault();
        policy.recordExistsAction = RecordExistsAction.UPDATE_ONLY;
        policy.commitLevel = CommitLevel.COMMIT_ALL;
        policy.expiration = expiration;
        policy.filterExp = filter;
        return policy;
    }

    BatchPolicy batchPolicy(long timeout) {
        BatchPolicy policy = client.copyBatchPolicyDefault();
        policy.totalTimeout = (int) Math.min(Integer.MAX_VALUE, timeout);
        return policy;
    }

    /** The exclusive lock in {@code record}; empty for no record or a marker. */
    static Optional<LockRecord> toRecord(LockKey key, Record record) {
        if (AerospikeHolders.isMarker(record)) {
            return Optional.empty();
        }
        return toRecord(key, record, record == null ? 0 : record.getLong(TOKEN), LockMode.EXCLUSIVE);
    }

    /** The holder in a lock or holder {@code record}, with the given token and mode. */
    static Optional<LockRecord> toRecord(LockKey key, Record record, long token, LockMode mode) {
        if (record == null || record.getString(OWNER) == null) {
            return Optional.empty();
        }
        Instant now = Instant.now();
        long leaseMillis = record.getLong(LEASE);
        return Optional.of(new LockRecord(new LockHandle(key, record.getString(OWNER)), record.getString(NODE),
                record.getString(THREAD), Instant.ofEpochMilli(record.getLong(LOCK_TIME)),
                record.getTimeToLive() > 0 ? now.plusSeconds(record.getTimeToLive()) : now.plusMillis(leaseMillis),
                LockStatus.valueOf(record.getString(STATUS)), token, mode));
    }

    private static final RetryPolicy.Classifier FAILURES = e -> isTransient(e) ? Failure.TRANSIENT : Failure.PERMANENT;

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
                || code == ResultCode.DEVICE_OVERLOAD || code == ResultCode.NO_MORE_CONNECTIONS;
    }
}
