package io.github.lockmanager.store.aerospike;

import com.aerospike.client.IAerospikeClient;
import com.aerospike.client.Record;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.testing.Requests;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;

import static io.github.lockmanager.LockMode.EXCLUSIVE;
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
    void anExclusiveAcquisitionTakesOverFromACrashedLastReader() throws Exception {
        LockKey key = key("crashed");
        AcquireResult crashed = store.acquire(Requests.request(key, "crashed", SHARED), Duration.ofSeconds(1));
        assertThat(crashed.isAcquired()).isTrue();
        AcquireResult refused = store.acquire(Requests.request(key, "early", EXCLUSIVE), LEASE);
        assertThat(refused.isAcquired()).isFalse();
        assertThat(refused.record().handle()).isEqualTo(crashed.record().handle());

        // the reader never releases: its holder record expires, and the marker it left must not keep writers out
        await().atMost(Duration.ofSeconds(20)).until(() -> store.read(key).isEmpty());
        assertThat(AerospikeHolders.isMarker(lockRecord(key))).as("the marker outlives its holders").isTrue();
        AcquireResult writer = store.acquire(Requests.request(key, "writer", EXCLUSIVE), LEASE);
        assertThat(writer.isAcquired()).isTrue();
        assertThat(writer.record().fencingToken()).isGreaterThan(crashed.record().fencingToken());
        assertThat(store.acquire(Requests.request(key, "reader", SHARED), LEASE).isAcquired()).isFalse();
        assertThat(store.release(writer.record().handle())).isTrue();
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

    @Test
    void aRepeatedRequestJoinsOnce() throws Exception {
        LockKey key = key("repeated");
        // what a retry after a timed-out write that applied looks like to the store
        AcquireResult first = store.acquire(Requests.request(key, "reader", SHARED), LEASE);
        AcquireResult again = store.acquire(Requests.request(key, "reader", SHARED), LEASE);
        assertThat(again.isAcquired()).isTrue();
        assertThat(again.record().handle()).isEqualTo(first.record().handle());
        assertThat(store.list().stream().filter(r -> r.key().equals(key))).hasSize(1);
        assertThat(store.release(first.record().handle())).isTrue();
        assertThat(lockRecord(key)).isNull();
    }

    @Test
    void anAbortMarksEveryReaderAndNoLaterOne() throws Exception {
        LockKey key = key("abort");
        LockHandle a = store.acquire(Requests.request(key, "a", SHARED), LEASE).record().handle();
        LockHandle b = store.acquire(Requests.request(key, "b", SHARED), LEASE).record().handle();
        assertThat(store.markAbort(key)).isTrue();
        LockHandle later = store.acquire(Requests.request(key, "later", SHARED), LEASE).record().handle();
        assertThat(store.check(List.of(a, b, later)).values())
                .containsExactly(HoldState.ABORT_REQUESTED, HoldState.ABORT_REQUESTED, HoldState.HELD);
        assertThat(store.renew(List.of(a, later), LEASE).values())
                .containsExactly(HoldState.ABORT_REQUESTED, HoldState.HELD);
        for (LockHandle handle : List.of(a, b, later)) {
            assertThat(store.release(handle)).isTrue();
        }
        assertThat(store.markAbort(key)).isFalse();
    }

    private static Record lockRecord(LockKey key) {
        return client.get(null, store.lockKey(key));
    }
}
