package io.github.lockmanager.store.aerospike;

import com.aerospike.client.IAerospikeClient;
import com.aerospike.client.Record;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.testing.support.Requests;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

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
    static void createStore() {
        client = AerospikeServer.client();
        store = AerospikeServer.store("store");
    }

    private static LockKey key(String name) {
        return Requests.uniqueKey("store-test", name);
    }

    private static Record record(LockKey key) {
        return client.get(null, store.access().lockKey(key));
    }

    @Test
    void aMissingNamespaceFailsInitializeClearly() {
        AerospikeLockStore wrong = AerospikeLockStore.builder(client).namespace("no_such_ns").build();
        assertThatThrownBy(wrong::initialize).isInstanceOfSatisfying(LockManagerException.class, e -> {
            assertThat(e.getErrorCode()).isEqualTo(ErrorCode.TABLE_CREATION_ERROR);
            assertThat(e.getMessage()).contains("no_such_ns");
        });
    }

    /**
     * What docs/permits.md says a permit costs here: a grant one call of the client (one operation on the record), a
     * refusal two (the filtered operation, then a read to name a holder), another number refused as well.
     */
    @Test
    void aPermitIsOneCallGrantedAndTwoRefused() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        List<String> names = new java.util.concurrent.CopyOnWriteArrayList<>();
        IAerospikeClient counting = (IAerospikeClient) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {IAerospikeClient.class}, (proxy, method, args) -> {
                    // the calls that go to the server; policies and the cluster view are read locally
                    String name = method.getName();
                    if (!name.startsWith("copy") && (!name.startsWith("get") || name.equals("get"))) {
                        calls.incrementAndGet();
                        names.add(name);
                    }
                    try {
                        return method.invoke(client, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        AerospikeLockStore counted = AerospikeLockStore.builder(counting).namespace(AerospikeServer.namespace())
                .setSuffix("store").build();
        counted.initialize();
        LockKey key = key("permits");
        LockHandle first = new LockHandle(key, "first");
        calls.set(0);
        assertThat(counted.acquire(LockRequest.permit(first, "n", "t", 1), LEASE).isAcquired()).isTrue();
        assertThat(calls.get()).as("calls of a grant: %s", names).isEqualTo(1);
        calls.set(0);
        names.clear();
        AcquireResult refused = counted.acquire(LockRequest.permit(new LockHandle(key, "next"), "n", "t", 1), LEASE);
        assertThat(calls.get()).as("calls of a refusal: %s", names).isEqualTo(2);
        assertThat(refused.record().handle()).isEqualTo(first);
        AcquireResult otherNumber = counted.acquire(LockRequest.permit(new LockHandle(key, "five"), "n", "t", 5), LEASE);
        assertThat(otherNumber.isAcquired()).isFalse();
        assertThat(otherNumber.record().permits()).isEqualTo(1);
        assertThat(record(key).generation).as("one write, none by the refusals").isEqualTo(1);
        assertThat(counted.release(first)).isTrue();
    }

    @Test
    void anAcquisitionIsOneWriteAndARefusalWritesNothing() throws Exception {
        LockKey key = key("one-write");
        LockRecord held = store.acquire(Requests.request(key, "a"), LEASE).record();
        Record before = record(key);
        assertThat(before.generation).as("one write made the record, its token and its holder").isEqualTo(1);

        for (LockMode mode : LockMode.values()) {
            assertThat(store.acquire(Requests.request(key, "b-" + mode, mode), LEASE).record().handle())
                    .as("refused %s, naming the holder", mode).isEqualTo(held.handle());
        }
        Record after = record(key);
        assertThat(after.generation).as("refusals leave no trace, no orphan").isEqualTo(before.generation);
        assertThat(after.getTimeToLive()).as("nor a shorter TTL").isGreaterThanOrEqualTo(before.getTimeToLive() - 1);
        assertThat(store.release(held.handle())).isTrue();
        assertThat(record(key).generation).as("a release is one write").isEqualTo(2);
    }

    @Test
    void aKeyIsFreeWhenItsLeaseEndsOnTheServersClockNotAtAWholeSecondTtl() throws Exception {
        LockKey key = key("ms");
        long start = System.nanoTime();
        store.acquire(Requests.request(key, "crashed"), Duration.ofMillis(300));
        assertThat(store.acquire(Requests.request(key, "next"), LEASE).isAcquired()).isFalse();

        await().pollInterval(Duration.ofMillis(20)).atMost(Duration.ofSeconds(10))
                .until(() -> store.acquire(Requests.request(key, "next"), LEASE).isAcquired());
        long freeAfterMillis = (System.nanoTime() - start) / 1_000_000;
        assertThat(freeAfterMillis).as("free after the lease, well before the 2 s a whole-second TTL would take")
                .isBetween(300L, 1_500L);
    }

    @Test
    void theRecordOutlivesEveryLeaseByTheRetentionAndNoShorterLeaseCutsItDown() throws Exception {
        LockKey key = key("ttl");
        LockRecord brief = store.acquire(Requests.request(key, "brief", LockMode.SHARED), Duration.ofMillis(1500)).record();
        assertThat(record(key).getTimeToLive()).as("retention 1 h plus the lease rounded up plus one second")
                .isBetween(3600 + 2, 3600 + 3);

        LockRecord longer = store.acquire(Requests.request(key, "long", LockMode.SHARED), Duration.ofHours(20)).record();
        int longTtl = 3600 + 20 * 3600 + 1;
        assertThat(record(key).getTimeToLive()).isBetween(longTtl - 2, longTtl);
        LockRecord shorter = store.acquire(Requests.request(key, "short", LockMode.SHARED), LEASE).record();
        assertThat(store.renew(List.of(brief.handle(), shorter.handle()), LEASE)).containsOnlyKeys(brief.handle(),
                shorter.handle()).containsValue(HoldState.HELD);
        assertThat(record(key).getTimeToLive()).as("a shorter lease's grant and renewal keep the longer lease's TTL")
                .isBetween(longTtl - 5, longTtl);
        assertThat(store.renew(List.of(longer.handle()), Duration.ofHours(20))).containsValue(HoldState.HELD);
        for (LockRecord holder : List.of(brief, longer, shorter)) {
            assertThat(store.release(holder.handle())).isTrue();
        }
    }

    @Test
    void aKeyWhoseRecordExpiredComesBackWithAHigherToken() throws Exception {
        AerospikeLockStore expiring = AerospikeLockStore.builder(client).namespace(AerospikeServer.namespace())
                .setSuffix("store").idleRecordRetention(Duration.ofSeconds(1)).build();
        LockKey key = key("expiring");
        AcquireResult first = expiring.acquire(Requests.request(key, "first"), Duration.ofSeconds(1));
        long firstToken = first.record().fencingToken();
        assertThat(expiring.release(first.record().handle())).isTrue();

        await().atMost(Duration.ofSeconds(20)).until(() -> record(key) == null);

        AcquireResult again = expiring.acquire(Requests.request(key, "again"), Duration.ofSeconds(1));
        assertThat(again.record().fencingToken()).as("a token never goes back, also after its record expired")
                .isGreaterThan(firstToken);
    }

    @Test
    void aNamespaceKeptInMemoryIsAcceptedSinceANewRecordsTokensStartFromTheServersClock() throws Exception {
        store.initialize();
        LockRecord held = store.acquire(Requests.request(key("epoch"), "a"), LEASE).record();
        assertThat(held.fencingToken()).as("1000 times the server's clock in ms")
                .isGreaterThan(1000 * (System.currentTimeMillis() - 60_000));
        store.release(held.handle());
    }

    @Test
    void aCompatibleGrantCleansUpTheEntriesWhoseLeaseEnded() throws Exception {
        LockKey key = key("cleanup");
        LockRecord gone = store.acquire(Requests.request(key, "gone", LockMode.SHARED), Duration.ofMillis(200)).record();
        await().atMost(Duration.ofSeconds(10)).until(() -> store.read(key).isEmpty());
        assertThat(store.inspect(key)).as("an operator still sees it until the next grant")
                .extracting(LockRecord::handle).containsExactly(gone.handle());

        LockRecord next = store.acquire(Requests.request(key, "next", LockMode.SHARED), LEASE).record();
        assertThat(store.inspect(key)).extracting(LockRecord::handle).containsExactly(next.handle());
        assertThat(store.release(gone.handle())).as("the ended holder's release").isFalse();
        assertThat(store.release(next.handle())).isTrue();
    }
}
