package io.github.lockmanager.store.aerospike;

import com.aerospike.client.Bin;
import com.aerospike.client.IAerospikeClient;
import com.aerospike.client.Key;
import com.aerospike.client.Record;
import com.aerospike.client.policy.WritePolicy;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.testing.StoredFormat;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stored format, pinned: records written bin by bin as a release of this store wrote them (set, user key, the
 * holders map of {@code [tag, token, node, thread, lock time, lease(, permits)]} lists whose tag is
 * {@code mode code * 2^44 + lease end ms}, the counter and the permits bin) are read, respected, renewed and released by
 * this one, and what this one writes has that form. A change of format fails here, not in a cluster that upgrades
 * node by node.
 */
@ExtendWith(AerospikeServer.class)
class AerospikeFormatTest {
    private static final String SUFFIX = "fmt";
    private static AerospikeLockStore store;
    private static IAerospikeClient client;
    private final String clientId = "fmt-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void createStore() {
        store = AerospikeServer.store(SUFFIX);
        client = AerospikeServer.client();
    }

    private static long tag(int modeCode, long leaseEnd) {
        return ((long) modeCode << 44) + leaseEnd;
    }

    private static void write(Key key, Bin... bins) {
        WritePolicy policy = new WritePolicy(client.getWritePolicyDefault());
        policy.expiration = 600;
        client.put(policy, key, bins);
    }

    @Test
    void recordsOfFormatOneAreRead() throws Exception {
        LockKey job = LockKey.dc("farm-1", clientId, "order-7");
        LockKey pool = LockKey.xdc(clientId, "pool");
        long end = System.currentTimeMillis() + 60_000;
        write(new Key(AerospikeServer.namespace(), "DC#farm-1#" + SUFFIX, clientId + "#order-7"),
                new Bin("holders", Map.of("writer-1",
                        List.of(tag(3, end), 1700000000000041L, "node-a", "thread-1", 1700000000000L, 60_000L))),
                new Bin("fence", 1700000000000042L));
        write(new Key(AerospikeServer.namespace(), "XDC#" + SUFFIX, clientId + "#pool"),
                new Bin("holders", Map.of("permit-1", List.of(tag(4, end), 21L, "c", "z", 1700000000000L, 60_000L, 2L))),
                new Bin("fence", 21L), new Bin("permits", 2L));

        assertThat(store.inspect(job).get(0).expirationTime()).isEqualTo(Instant.ofEpochMilli(end));
        StoredFormat.readsExclusive(store, job, "writer-1", "node-a", "thread-1", 1700000000000L, 1700000000000041L,
                1700000000000042L);
        LockHandle second = StoredFormat.readsPermit(store, pool, "permit-1", 2, "z");
        LockHandle first = new LockHandle(pool, "permit-1");
        Duration lease = Duration.ofMinutes(1);
        assertThat(store.renew(List.of(first), lease)).containsEntry(first, HoldState.HELD);
        assertThat(store.release(first)).isTrue();
        assertThat(store.release(second)).isTrue();
    }

    @Test
    void whatThisStoreWritesIsFormatOne() throws Exception {
        LockKey key = LockKey.xdc(clientId, "written");
        LockRecord granted = store.acquire(LockRequest.permit(new LockHandle(key, "p-1"), "node-a", "main", 3),
                Duration.ofMinutes(1)).record();
        Record stored = client.get(null, new Key(AerospikeServer.namespace(), "XDC#" + SUFFIX, clientId + "#written"));
        List<?> entry = (List<?>) ((Map<?, ?>) stored.getValue("holders")).get("p-1");
        assertThat((Long) entry.get(0) >>> 44).as("the tag's mode code").isEqualTo(4L);
        assertThat(Instant.ofEpochMilli((Long) entry.get(0) & ((1L << 44) - 1))).isEqualTo(granted.expirationTime());
        assertThat(List.<Object>copyOf(entry.subList(1, entry.size()))).containsExactly(granted.fencingToken(), "node-a", "main",
                granted.lockTime().toEpochMilli(), 60_000L, 3L);
        assertThat(stored.getLong("fence")).isEqualTo(granted.fencingToken());
        assertThat(stored.getLong("permits")).isEqualTo(3L);
        store.release(granted.handle());
    }
}
