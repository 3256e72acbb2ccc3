package io.github.lockmanager.store.redis;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.testing.StoredFormat;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stored format, pinned: hashes written field by field as a release of this store wrote them are read, renewed,
 * respected and released by this one, and what this one writes has that form. A change of format fails here, not in
 * a cluster that upgrades node by node.
 */
class RedisFormatTest {
    private static final String PREFIX = "lockmanager-format:";
    private static RedisLockStore store;
    private static RedisCommands<String, String> redis;

    private final String client = "fmt-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void connect() {
        store = RedisServer.store(PREFIX);
        redis = RedisServer.client().connect().sync();
    }

    @AfterAll
    static void close() {
        store.close();
        redis.getStatefulConnection().close();
    }

    private static long serverMillis() {
        List<String> time = redis.time();
        return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
    }

    @Test
    void hashNameFieldsAndEntriesOfFormatOneAreRead() throws Exception {
        LockKey key = LockKey.dc("farm-1", client, "order-7");
        String hash = PREFIX + "DC#farm-1#" + client + "#order-7";
        long now = serverMillis();
        redis.hset(hash, Map.of(
                "f", "1700000000000042",
                "a", "1700000000000040",
                "h:writer-1", "3 " + (now + 60_000) + " 1700000000000 1700000000000041 6 node-athread-1"));

        LockRecord held = store.inspect(key).get(0);
        assertThat(held.expirationTime()).isEqualTo(Instant.ofEpochMilli(now + 60_000));
        assertThat(held.status()).as("its token is above the abort mark").hasToString("RUNNING");
        StoredFormat.readsExclusive(store, key, "writer-1", "node-a", "thread-1", 1700000000000L, 1700000000000041L,
                1700000000000042L);
    }

    @Test
    void sharedAndPermitEntriesOfFormatOneAreRead() throws Exception {
        LockKey readers = LockKey.xdc(client, "report");
        LockKey pool = LockKey.xdc(client, "pool");
        long end = serverMillis() + 60_000;
        redis.hset(PREFIX + "XDC#" + client + "#report", Map.of("f", "12",
                "h:r-1", "2 " + end + " 1700000000000 11 1 ax", "h:r-2", "2 " + end + " 1700000000000 12 1 by"));
        redis.hset(PREFIX + "XDC#" + client + "#pool", Map.of("f", "21",
                "h:p-1", "4:2 " + end + " 1700000000000 21 1 cz"));

        assertThat(store.inspect(readers)).extracting(LockRecord::mode).containsOnly(LockMode.SHARED).hasSize(2);
        LockRecord permit = store.inspect(pool).get(0);
        assertThat(permit.nodeId()).isEqualTo("c");
        LockHandle second = StoredFormat.readsPermit(store, pool, "p-1", 2, "z");

        // a reader joins the stored readers
        LockHandle third = new LockHandle(readers, "r-3");
        assertThat(store.acquire(LockRequest.of(third, "n", "t", LockMode.SHARED), Duration.ofMinutes(1)).isAcquired())
                .isTrue();
        for (String owner : List.of("r-1", "r-2", "r-3")) {
            assertThat(store.release(new LockHandle(readers, owner))).isTrue();
        }
        assertThat(store.release(new LockHandle(pool, "p-1"))).isTrue();
        assertThat(store.release(second)).isTrue();
    }

    @Test
    void whatThisStoreWritesIsFormatOne() throws Exception {
        LockKey key = LockKey.xdc(client, "written");
        LockHandle writer = new LockHandle(key, "w-1");
        LockRecord granted = store.acquire(LockRequest.of(writer, "node-a", "main", LockMode.EXCLUSIVE),
                Duration.ofMinutes(1)).record();
        LockHandle permit = new LockHandle(LockKey.xdc(client, "permits"), "p-1");
        store.acquire(LockRequest.permit(permit, "node-a", "main", 3), Duration.ofMinutes(1));

        Map<String, String> fields = redis.hgetall(PREFIX + "XDC#" + client + "#written");
        assertThat(fields).containsEntry("f", Long.toString(granted.fencingToken()));
        assertThat(fields.get("h:w-1")).matches("3 \\d{13} \\d{13} " + granted.fencingToken() + " 6 node-amain");
        assertThat(redis.hget(PREFIX + "XDC#" + client + "#permits", "h:p-1"))
                .matches("4:3 \\d{13} \\d{13} \\d+ 6 node-amain");
        store.release(writer);
        store.release(permit);
    }
}
