package io.github.lockmanager.bench;

import com.aerospike.client.AerospikeClient;
import com.aerospike.client.AerospikeException;
import com.aerospike.client.Bin;
import com.aerospike.client.Info;
import com.aerospike.client.Key;
import com.aerospike.client.ResultCode;
import com.aerospike.client.exp.Exp;
import com.aerospike.client.policy.ClientPolicy;
import com.aerospike.client.policy.CommitLevel;
import com.aerospike.client.policy.RecordExistsAction;
import com.aerospike.client.policy.ScanPolicy;
import com.aerospike.client.policy.WritePolicy;
import com.aerospike.client.cdt.MapOperation;
import com.aerospike.client.cdt.MapPolicy;
import com.aerospike.client.cdt.MapReturnType;
import com.aerospike.client.Value;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.aerospike.AerospikeLockStore;

import java.util.concurrent.atomic.LongAdder;

/**
 * An Aerospike server named by {@code -Daerospike.host} (and {@code -Daerospike.port}, {@code -Daerospike.namespace}).
 * The raw baseline is what PhonePe DLM does on Aerospike: a create-only put with a TTL, then a delete; the raw shared
 * cycle a map put into the key's record and its removal; the raw scan a scan of the store's lock set.
 */
final class AerospikeSubject implements Subject {
    private static final String SET = "bench_raw";
    private final AerospikeClient client;
    private final String namespace;
    private final AerospikeLockStore store;
    private final WritePolicy create;
    private final WritePolicy update;
    private final WritePolicy delete;

    private AerospikeSubject(String host, int port, String namespace) throws LockManagerException {
        this.client = new AerospikeClient(new ClientPolicy(), host, port);
        this.namespace = namespace;
        this.store = AerospikeLockStore.builder(client).namespace(namespace).setSuffix("bench").build();
        store.initialize();
        create = policy(RecordExistsAction.CREATE_ONLY, 600);
        update = policy(RecordExistsAction.UPDATE, 600);
        delete = policy(RecordExistsAction.UPDATE, 0);
    }

    /** The subject for the server the run names, or {@code null} when it names none. */
    static AerospikeSubject fromSystemProperties() throws LockManagerException {
        String host = System.getProperty("aerospike.host", "");
        if (host.isBlank()) {
            return null;
        }
        return new AerospikeSubject(host, Integer.getInteger("aerospike.port", 3000),
                System.getProperty("aerospike.namespace", "test"));
    }

    private static WritePolicy policy(RecordExistsAction action, int ttl) {
        WritePolicy policy = new WritePolicy();
        policy.recordExistsAction = action;
        policy.commitLevel = CommitLevel.COMMIT_ALL;
        policy.expiration = ttl;
        return policy;
    }

    String version() {
        return "Aerospike " + Info.request(client.getNodes()[0], "build") + " ("
                + Info.request(client.getNodes()[0], "edition") + ")";
    }

    @Override
    public String name() {
        return "Aerospike";
    }

    @Override
    public LockStore store() {
        return store;
    }

    @Override
    public String rawCycleDescription() {
        return "put CREATE_ONLY with a TTL + delete (PhonePe DLM's protocol on Aerospike)";
    }

    @Override
    public boolean freshKeysAgainstRaw() {
        return true;
    }

    @Override
    public void rawCycle(String key, String owner) {
        Key record = new Key(namespace, SET, key);
        client.put(create, record, new Bin("owner", owner));
        client.delete(delete, record);
    }

    @Override
    public String rawSharedCycleDescription() {
        return "operate: map put of the holder, filtered on no exclusive owner + operate: map remove";
    }

    @Override
    public void rawSharedCycle(String key, String owner) {
        Key record = new Key(namespace, SET, "shared#" + key);
        WritePolicy join = new WritePolicy(update);
        join.filterExp = Exp.build(Exp.not(Exp.binExists("owner")));
        client.operate(join, record, MapOperation.put(MapPolicy.Default, "holders", Value.get(owner), Value.get(1L)));
        client.operate(update, record, MapOperation.removeByKey("holders", Value.get(owner), MapReturnType.NONE));
    }

    @Override
    public long rawScan() {
        LongAdder records = new LongAdder();
        ScanPolicy policy = new ScanPolicy();
        try {
            client.scanAll(policy, namespace, "XDC#bench", (key, record) -> records.increment());
            client.scanAll(policy, namespace, "DC#default#bench", (key, record) -> records.increment());
        } catch (AerospikeException e) {
            if (e.getResultCode() != ResultCode.SERVER_ERROR) {
                throw e;
            }
        }
        return records.sum();
    }

    @Override
    public int listSize(Settings settings) {
        return settings.listSize();
    }

    @Override
    public void close() {
        client.close();
    }
}
