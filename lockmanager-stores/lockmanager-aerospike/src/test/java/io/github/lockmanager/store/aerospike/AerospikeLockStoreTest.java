package io.github.lockmanager.store.aerospike;

import com.aerospike.client.IAerospikeClient;
import com.aerospike.client.Key;
import com.aerospike.client.Record;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.testing.Requests;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.Test;

import java.time.Duration;

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
        store = AerospikeLockStore.builder(client).namespace(AerospikeServer.namespace()).setSuffix("store")
                .allowVolatileNamespace(true).build();
        store.initialize();
    }

    private static LockKey key(String name) {
        return Requests.uniqueKey("store-test", name);
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
        store.acquire(Requests.request(key, "a"), Duration.ofMillis(1500));
        Record record = client.get(null, new Key(AerospikeServer.namespace(), "XDC#store", "store-test#" + key.name()));
        assertThat(record.getTimeToLive()).as("ttl of a 1.5 s lease").isBetween(2, 3);
    }

    @Test
    void aKeyWhoseCounterExpiredComesBackWithAHigherToken() throws Exception {
        AerospikeLockStore expiring = AerospikeLockStore.builder(client).namespace(AerospikeServer.namespace())
                .setSuffix("store").allowVolatileNamespace(true).idleRecordRetention(Duration.ofSeconds(1)).build();
        LockKey key = key("expiring");
        AcquireResult first = expiring.acquire(Requests.request(key, "first"), Duration.ofSeconds(1));
        long firstToken = first.record().fencingToken();
        assertThat(expiring.release(first.record().handle())).isTrue();
        Key counter = new Key(AerospikeServer.namespace(), "XDC#store", "#fence#store-test#" + key.name());

        await().atMost(Duration.ofSeconds(15)).until(() -> !client.exists(null, counter));

        AcquireResult again = expiring.acquire(Requests.request(key, "again"), Duration.ofSeconds(1));
        assertThat(again.record().fencingToken()).as("a token never goes back, also after its counter expired")
                .isGreaterThan(firstToken);
    }

    @Test
    void initializeReadsTheNamespaceItIsGiven() throws Exception {
        String info = com.aerospike.client.Info.request(client.getCluster().getRandomNode(),
                "namespace/" + AerospikeServer.namespace());
        boolean inMemoryOnly = info.contains("storage-engine=memory") && !info.contains("storage-engine.file")
                && !info.contains("storage-engine.device");
        AerospikeLockStore strict = AerospikeLockStore.builder(client).namespace(AerospikeServer.namespace()).build();
        if (inMemoryOnly) {
            assertThatThrownBy(strict::initialize).hasMessageContaining("keeps its records in memory only");
        } else {
            strict.initialize();
        }
    }
}
