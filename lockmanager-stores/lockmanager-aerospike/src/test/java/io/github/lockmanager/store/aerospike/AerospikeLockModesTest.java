package io.github.lockmanager.store.aerospike;

import com.aerospike.client.IAerospikeClient;
import com.aerospike.client.Record;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.testing.Requests;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;

import static io.github.lockmanager.LockMode.INTENT_EXCLUSIVE;
import static io.github.lockmanager.LockMode.SHARED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Aerospike store's markers and holder records, on a real server (skipped with a message when none is
 * available): what the mode contract of the TCK cannot see from outside.
 */
@ExtendWith(AerospikeServer.class)
class AerospikeLockModesTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static IAerospikeClient client;
    private static AerospikeLockStore store;

    @BeforeAll
    static void createStore() throws LockManagerException {
        client = AerospikeServer.client();
        store = AerospikeServer.store("modes");
    }

    private static LockKey key(String name) {
        return Requests.uniqueKey("modes-test", name);
    }

    @Test
    void theLastReaderToLeaveDeletesTheMarker() throws Exception {
        LockKey key = key("last");
        LockHandle first = store.acquire(Requests.request(key, "first", SHARED), LEASE).record().handle();
        LockHandle second = store.acquire(Requests.request(key, "second", SHARED), LEASE).record().handle();
        assertThat(AerospikeHolders.entries(lockRecord(key))).containsOnlyKeys(first.ownerToken(), second.ownerToken());
        assertThat(store.release(first)).isTrue();
        assertThat(AerospikeHolders.isMarker(lockRecord(key))).as("a reader is still there").isTrue();
        assertThat(store.release(second)).isTrue();
        assertThat(lockRecord(key)).isNull();
        assertThat(store.release(second)).as("released twice").isFalse();
    }

    @Test
    void aConflictingEntryWhoseHolderExpiredIsRemovedByTheNextJoin() throws Exception {
        LockKey key = key("stale");
        LockHandle intent = store.acquire(Requests.request(key, "intent", INTENT_EXCLUSIVE), Duration.ofSeconds(1))
                .record().handle();
        LockHandle steady = store.acquire(Requests.request(key, "steady", INTENT_EXCLUSIVE), LEASE).record().handle();
        assertThat(store.acquire(Requests.request(key, "early", SHARED), LEASE).isAcquired()).isFalse();

        await().atMost(Duration.ofSeconds(20)).until(() -> store.list().stream()
                .noneMatch(holder -> holder.handle().equals(intent)));
        assertThat(store.acquire(Requests.request(key, "early-again", SHARED), LEASE).isAcquired())
                .as("a live holder in a conflicting mode is still there").isFalse();
        assertThat(store.release(steady)).isTrue();
        AcquireResult reader = store.acquire(Requests.request(key, "reader", SHARED), LEASE);
        assertThat(reader.isAcquired()).isTrue();
        assertThat(AerospikeHolders.entries(lockRecord(key))).containsOnlyKeys(reader.record().ownerToken());
        assertThat(store.release(reader.record().handle())).isTrue();
    }

    @Test
    void aMarkerLeftByACrashedReaderIsPurged() throws Exception {
        LockKey key = key("purged");
        LockRecord crashed = store.acquire(Requests.request(key, "crashed", SHARED), Duration.ofSeconds(1)).record();

        await().atMost(Duration.ofSeconds(30)).until(() -> store.purgeIdleRecords() >= 0 && lockRecord(key) == null);
        AcquireResult reborn = store.acquire(Requests.request(key, "reborn", SHARED), LEASE);
        assertThat(reborn.record().fencingToken()).isGreaterThan(crashed.fencingToken());
        assertThat(store.release(reborn.record().handle())).isTrue();
    }

    private static Record lockRecord(LockKey key) {
        return client.get(null, store.lockKey(key));
    }
}
