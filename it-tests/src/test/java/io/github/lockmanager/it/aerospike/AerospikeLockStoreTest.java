package io.github.lockmanager.it.aerospike;

import com.aerospike.client.IAerospikeClient;
import com.aerospike.client.Key;
import com.aerospike.client.Record;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.store.aerospike.AerospikeLockStore;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The Aerospike store's own guarantees on a real server (skipped with a message when none is available). */
@ExtendWith(AerospikeServer.class)
class AerospikeLockStoreTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static IAerospikeClient client;
    private static AerospikeLockStore store;

    @BeforeAll
    static void createStore() throws LockManagerException {
        client = AerospikeServer.client();
        store = AerospikeLockStore.builder(client).namespace(AerospikeServer.namespace()).setSuffix("store").build();
        store.initialize();
    }

    private static LockKey key(String name) {
        return LockKey.xdc("store-test", name + "-" + UUID.randomUUID());
    }

    private static LockRequest request(LockKey key, String owner) {
        return new LockRequest(new LockHandle(key, owner), "node-" + owner, "thread-" + owner);
    }

    @Test
    void aMissingNamespaceFailsInitializeClearly() {
        AerospikeLockStore wrong = AerospikeLockStore.builder(client).namespace("no_such_ns").build();
        assertThatThrownBy(wrong::initialize).isInstanceOfSatisfying(LockManagerException.class, e -> {
            assertThat(e.getErrorCode()).isEqualTo(ErrorCode.TABLE_CREATION_ERROR);
            assertThat(e.getMessage()).contains("no_such_ns");
        });
    }

    @Test
    void aSubSecondLeaseGetsATtlOfWholeSecondsThatOutlivesIt() throws Exception {
        LockKey key = key("ttl");
        store.acquire(request(key, "a"), Duration.ofMillis(1500));
        Record record = client.get(null, new Key(AerospikeServer.namespace(), "XDC#store", "store-test#" + key.name()));
        assertThat(record.getTimeToLive()).as("ttl of a 1.5 s lease").isBetween(2, 3);
    }

    @Test
    void aLockIsFreeAfterItsLeaseAndItsStaleOwnerCanNoLongerTouchIt() throws Exception {
        LockKey key = key("stale");
        LockRecord old = store.acquire(request(key, "old"), Duration.ofSeconds(1)).record();
        assertThat(store.acquire(request(key, "new"), LEASE).isAcquired()).isFalse();

        await().atMost(Duration.ofSeconds(15)).until(() -> store.acquire(request(key, "new"), LEASE).isAcquired());
        LockRecord current = store.read(key).orElseThrow();

        assertThat(store.release(old.handle())).isFalse();
        assertThat(store.renew(List.of(old.handle()), LEASE)).containsEntry(old.handle(), HoldState.LOST);
        assertThat(store.read(key)).get().extracting(LockRecord::handle).isEqualTo(current.handle());
        assertThat(current.fencingToken()).isGreaterThan(old.fencingToken());
    }

    @Test
    void fencingTokensIncreaseAcrossReleases() throws Exception {
        LockKey key = key("tokens");
        long last = 0;
        for (int i = 0; i < 20; i++) {
            AcquireResult result = store.acquire(request(key, "o" + i), LEASE);
            assertThat(result.isAcquired()).isTrue();
            assertThat(result.record().fencingToken()).isGreaterThan(last);
            last = result.record().fencingToken();
            assertThat(store.release(result.record().handle())).isTrue();
        }
    }

    @Test
    void aRepeatedAcquireOfTheSameAcquisitionReportsItAsOurs() throws Exception {
        LockKey key = key("retry");
        LockRecord first = store.acquire(request(key, "a"), LEASE).record();
        AcquireResult again = store.acquire(request(key, "a"), LEASE);
        assertThat(again.isAcquired()).isTrue();
        assertThat(again.record().fencingToken()).isEqualTo(first.fencingToken());
    }

    @Test
    void abortMarksOnlyALiveLockAndRenewalReportsIt() throws Exception {
        LockKey key = key("abort");
        assertThat(store.markAbort(key)).isFalse();
        LockRecord held = store.acquire(request(key, "a"), LEASE).record();
        assertThat(store.markAbort(key)).isTrue();
        assertThat(store.read(key)).get().extracting(LockRecord::status).isEqualTo(LockStatus.ABORT);
        assertThat(store.check(List.of(held.handle()))).containsEntry(held.handle(), HoldState.ABORT_REQUESTED);
        assertThat(store.renew(List.of(held.handle()), LEASE)).containsEntry(held.handle(), HoldState.ABORT_REQUESTED);
    }

    @Test
    void oneBatchCallAnswersEveryLock() throws Exception {
        List<LockHandle> handles = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            handles.add(store.acquire(request(key("batch" + i), "a"), LEASE).record().handle());
        }
        store.release(handles.get(3));
        Map<LockHandle, HoldState> answers = store.renew(handles, LEASE);
        assertThat(answers).hasSize(30).containsEntry(handles.get(3), HoldState.LOST);
        assertThat(answers.values()).filteredOn(s -> s == HoldState.HELD).hasSize(29);
    }

    @Test
    void listingReturnsLiveLocksOnly() throws Exception {
        String client = "list-" + UUID.randomUUID().toString().substring(0, 8);
        List<LockHandle> handles = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            handles.add(store.acquire(request(LockKey.xdc(client, "k" + i), "a"), LEASE).record().handle());
        }
        store.release(handles.get(0));
        assertThat(store.list()).filteredOn(r -> r.key().clientId().equals(client)).hasSize(9);
    }
}
