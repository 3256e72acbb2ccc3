package io.github.lockmanager.store.aerospike;

import com.aerospike.client.AerospikeException;
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
import com.aerospike.client.policy.BatchPolicy;
import com.aerospike.client.policy.CommitLevel;
import com.aerospike.client.policy.RecordExistsAction;
import com.aerospike.client.policy.WritePolicy;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.store.support.RetryPolicy;
import io.github.lockmanager.store.support.RetryPolicy.Failure;

import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;

import static io.github.lockmanager.store.aerospike.AerospikeExpressions.NOW;

/**
 * What the Aerospike store's parts share, and nothing more: the client, where a key's record lives, how a call is
 * bounded and retried, and the policies every write and batch is made with. The store and its helpers (batches,
 * listing, data under lock) are built on it; none of them needs the store itself.
 */
final class AerospikeAccess {
    /** A write's TTL that leaves the record's TTL as it is. */
    static final int DO_NOT_CHANGE_TTL = -2;
    private static final RetryPolicy.Classifier FAILURES = e -> isTransient(e) ? Failure.TRANSIENT : Failure.PERMANENT;

    private final IAerospikeClient client;
    private final String namespace;
    private final String setSuffix;
    private final Duration operationTimeout;
    private final Duration retention;
    private final RetryPolicy retries;

    AerospikeAccess(IAerospikeClient client, String namespace, String setSuffix, Duration operationTimeout,
                    Duration retention, RetryPolicy retries) {
        this.client = client;
        this.namespace = namespace;
        this.setSuffix = setSuffix;
        this.operationTimeout = operationTimeout;
        this.retention = retention;
        this.retries = retries;
    }

    IAerospikeClient client() {
        return client;
    }

    String namespace() {
        return namespace;
    }

    String setSuffix() {
        return setSuffix;
    }

    /** Runs {@code call} as every call of the store runs: within the operation timeout, retried when transient. */
    <T> T call(String what, RetryPolicy.Attempt<T> call) throws LockManagerException {
        return retries.call(what + " in Aerospike", operationTimeout, FAILURES, call);
    }

    Key lockKey(LockKey key) {
        return new Key(namespace, AerospikeLayout.checkSetName(AerospikeLayout.setName(key, setSuffix)),
                AerospikeLayout.lockUserKey(key));
    }

    int ttlSeconds(Duration lease) {
        return AerospikeLayout.ttlSeconds(retention, lease);
    }

    /** Reads the server's clock into the answer, under {@link AerospikeEntries#NOW}. */
    static Operation readNow() {
        return ExpOperation.read(AerospikeEntries.NOW, Exp.build(NOW), ExpReadFlags.DEFAULT);
    }

    static int clientTimeout(long timeout) {
        return (int) Math.min(Integer.MAX_VALUE, timeout);
    }

    /** A write committed to every replica, creating the record if absent, with the given TTL and filter. */
    WritePolicy writePolicy(int expiration, Exp filter) {
        WritePolicy policy = client.copyWritePolicyDefault();
        policy.recordExistsAction = RecordExistsAction.UPDATE;
        policy.commitLevel = CommitLevel.COMMIT_ALL;
        policy.expiration = expiration;
        policy.sendKey = true;
        policy.filterExp = Exp.build(filter);
        policy.failOnFilteredOut = true;
        return policy;
    }

    BatchPolicy batchPolicy(long timeout) {
        BatchPolicy policy = client.copyBatchPolicyDefault();
        policy.totalTimeout = clientTimeout(timeout);
        return policy;
    }

    /** The record after {@code ops}, or {@code null} if the policy's filter refused the write. */
    Record operateUnlessFiltered(WritePolicy policy, Key key, Operation... ops) {
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
     * One info command to {@code node}. After a restart of the server every connection the node's pool kept is
     * broken, and each failure discards one: the command is tried on each pooled connection and one new one.
     */
    static String info(Node node, String command) {
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

    /** The names of the store's lock sets that exist in the namespace, read from the server. */
    Set<String> lockSets() {
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
