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

        LockRecord writer = store.inspect(job).get(0);
        assertThat(writer.ownerToken()).isEqualTo("writer-1");
        assertThat(writer.mode()).isEqualTo(LockMode.EXCLUSIVE);
        assertThat(writer.nodeId()).isEqualTo("node-a");
        assertThat(writer.threadName()).isEqualTo("thread-1");
        assertThat(writer.lockTime()).isEqualTo(Instant.ofEpochMilli(1700000000000L));
        assertThat(writer.expirationTime()).isEqualTo(Instant.ofEpochMilli(end));
        assertThat(writer.fencingToken()).isEqualTo(1700000000000041L);
        LockRecord permit = store.inspect(pool).get(0);
        assertThat(permit.mode()).isEqualTo(LockMode.PERMIT);
        assertThat(permit.permits()).isEqualTo(2);
        assertThat(permit.threadName()).isEqualTo("z");

        LockHandle reader = new LockHandle(job, "reader-1");
        Duration lease = Duration.ofMinutes(1);
        assertThat(store.acquire(LockRequest.of(reader, "b", "t", LockMode.SHARED), lease).isAcquired()).isFalse();
        LockHandle writerHandle = new LockHandle(job, "writer-1");
        assertThat(store.renew(List.of(writerHandle), lease)).containsEntry(writerHandle, HoldState.HELD);
        assertThat(store.release(writerHandle)).isTrue();
        AcquireResult next = store.acquire(LockRequest.of(reader, "b", "t", LockMode.SHARED), lease);
        assertThat(next.isAcquired()).isTrue();
        assertThat(next.record().fencingToken()).as("the stored counter goes on").isGreaterThan(1700000000000042L);
        assertThat(store.release(reader)).isTrue();

        LockHandle second = new LockHandle(pool, "permit-2");
        assertThat(store.acquire(LockRequest.permit(second, "n", "t", 2), lease).isAcquired()).isTrue();
        assertThat(store.acquire(LockRequest.permit(new LockHandle(pool, "permit-3"), "n", "t", 3), lease)
                .isAcquired()).isFalse();
        LockHandle first = new LockHandle(pool, "permit-1");
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
