package io.github.lockmanager.store.aerospike;

import com.aerospike.client.AerospikeException;
import com.aerospike.client.IAerospikeClient;
import com.aerospike.client.ResultCode;
import com.aerospike.client.cluster.Node;
import com.aerospike.client.exp.Exp;
import com.aerospike.client.exp.ExpOperation;
import com.aerospike.client.exp.ExpWriteFlags;
import com.aerospike.client.policy.RecordExistsAction;
import com.aerospike.client.policy.WritePolicy;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
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
import io.github.lockmanager.store.support.StoreBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.github.lockmanager.store.aerospike.AerospikeExpressions.NOW;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.ABORT;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.FENCE;

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
 * {@linkplain Builder#idleRecordRetention retention}, or after a restart of a namespace kept in memory) starts by
 * the kit's {@link io.github.lockmanager.store.support.FencingEpoch} rule on the server's clock, above every token of
 * the key's earlier life as long as the server's clock does not go back by the retention.
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

    private final AerospikeAccess access;
    private final IAerospikeClient client;
    private final String namespace;
    private final boolean acceptTwoHoldersAfterRestart;
    private final AerospikeBatches batches;
    private final AerospikeGrants grants;

    private AerospikeLockStore(Builder builder) {
        this.access = new AerospikeAccess(builder.client, builder.namespace, builder.setSuffix,
                builder.getOperationTimeout(), builder.getIdleRecordRetention(), builder.getRetries());
        this.client = builder.client;
        this.namespace = builder.namespace;
        this.acceptTwoHoldersAfterRestart = builder.acceptTwoHoldersAfterRestart;
        this.batches = new AerospikeBatches(access);
        this.grants = new AerospikeGrants(access);
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
        private boolean acceptTwoHoldersAfterRestart;

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
         * Accepts a namespace kept in memory only ({@code storage-engine memory} without a {@code file} or
         * {@code device}), which {@link #initialize()} otherwise refuses. Its restart forgets every lock, and the store
         * cannot tell a record lost from one never written, so <b>for up to a third of a lease after such a restart
         * (the holder's next renewal) another node can be granted a key while its former holder still works</b>.
         * Fencing tokens stay ordered across it. Only where a resource checks the tokens, or two holders for a moment
         * do no harm. Default {@code false}.
         */
        public Builder acceptTwoHoldersAfterRestart(boolean accept) {
            this.acceptTwoHoldersAfterRestart = accept;
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
        AerospikeNamespace ns = access.call("inspect namespace '" + namespace + "'", timeout -> {
                    Node node = client.getCluster().getRandomNode();
                    namespaces.clear();
                    namespaces.addAll(Arrays.asList(AerospikeAccess.info(node, "namespaces").trim().split(";")));
                    return namespaces.contains(namespace) ? new AerospikeNamespace(namespace,
                            AerospikeAccess.info(node, "namespace/" + namespace), AerospikeAccess.info(node, "edition")) : null;
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
        ns.check(acceptTwoHoldersAfterRestart);
    }

    /**
     * One operation on the key's record ({@link AerospikeGrants#acquire}); a refusal reads the holders once more to
     * name one.
     */
    @Override
    public AcquireResult acquire(LockRequest request, Duration lease) throws LockManagerException {
        return grants.acquire(request, lease);
    }

    @Override
    public Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) throws LockManagerException {
        return batches.renew(handles, lease);
    }

    @Override
    public Map<LockHandle, HoldState> check(List<LockHandle> handles) throws LockManagerException {
        return batches.check(handles);
    }

    /** One operation: removes the handle's entry if it is there ({@link AerospikeGrants#release}). */
    @Override
    public boolean release(LockHandle handle) throws LockManagerException {
        return grants.release(handle);
    }

    @Override
    public Optional<LockRecord> read(LockKey key) throws LockManagerException {
        return access.call("read lock '" + key.name() + "'",
                timeout -> AerospikeListing.holders(access, key, timeout, true).stream().findFirst());
    }

    /** Every holder of the key, those whose lease ended included, until the next grant cleans them up. */
    @Override
    public List<LockRecord> inspect(LockKey key) throws LockManagerException {
        return access.call("inspect lock '" + key.name() + "'",
                timeout -> AerospikeListing.holders(access, key, timeout, false));
    }

    /** One scan per lock set for the keys with a live holder, then one batch read of their holders and clock. */
    @Override
    public List<LockRecord> list() throws LockManagerException {
        return AerospikeListing.list(access);
    }

    /** The means the store's parts share ({@link AerospikeRecordData}). */
    AerospikeAccess access() {
        return access;
    }

    /**
     * One operation, while the key has a live holder: the abort mark becomes the last token given, which asks every
     * holder granted so far (and no later one) to abort.
     */
    @Override
    public boolean markAbort(LockKey key) throws LockManagerException {
        WritePolicy policy = access.writePolicy(AerospikeAccess.DO_NOT_CHANGE_TTL,
                AerospikeExpressions.anyLive(NOW, AerospikeExpressions.HOLDERS_OR_EMPTY));
        policy.recordExistsAction = RecordExistsAction.UPDATE_ONLY;
        return access.call("abort lock '" + key.name() + "'", timeout -> {
            policy.totalTimeout = AerospikeAccess.clientTimeout(timeout);
            try {
                client.operate(policy, access.lockKey(key),
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
    /** A request naming its predecessor takes the predecessor's entry over in the operation that grants it. */
    @Override
    public void close() {
        // the client belongs to the caller
    }

    @Override
    public String toString() {
        return "AerospikeLockStore[" + namespace + ", sets *#" + access.setSuffix() + "]";
    }
}
