package io.github.lockmanager.store.cassandra;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DriverExecutionProfile;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.metadata.Node;
import com.datastax.oss.driver.api.core.session.Request;
import com.datastax.oss.driver.api.core.tracker.RequestTracker;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The Cassandra store's own promises: its round trips, its cells' TTL, what {@code initialize()} refuses. */
class CassandraLockStoreTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final String TABLE = "lockmanager_own";
    private static CqlSession counted;
    /** Per storage key: the tracker is told of a statement after its answer, so counts are kept apart by key. */
    private static final Map<String, AtomicInteger> swaps = new ConcurrentHashMap<>();
    private static final Map<String, AtomicInteger> reads = new ConcurrentHashMap<>();

    /**
     * Counts each statement the store sends, by kind and key: a compare-and-set (a Paxos round) or a plain read. A
     * statement is counted once its answer came, which may be just after the caller had it.
     */
    public static final class Counter implements RequestTracker {
        @Override
        public void onSuccess(Request request, long latencyNanos, DriverExecutionProfile profile, Node node,
                              String prefix) {
            count(request);
        }

        @Override
        public void onError(Request request, Throwable error, long latencyNanos, DriverExecutionProfile profile,
                            Node node, String prefix) {
            count(request);
        }

        private static void count(Request request) {
            if (request instanceof BoundStatement bound) {
                String query = bound.getPreparedStatement().getQuery();
                if (query.startsWith("UPDATE")) {
                    swaps.computeIfAbsent(bound.getString(2), k -> new AtomicInteger()).incrementAndGet();
                } else if (query.startsWith("SELECT") && query.contains("WHERE")) {
                    reads.computeIfAbsent(bound.getString(0), k -> new AtomicInteger()).incrementAndGet();
                }
            }
        }

        @Override
        public void close() {
        }
    }

    @BeforeAll
    static void session() {
        CassandraNode node = CassandraCluster.node();
        CassandraCluster.session();
        counted = CqlSession.builder().addContactPoint(new InetSocketAddress(node.address(), node.nativePort()))
                .withLocalDatacenter(node.dataCentre()).addRequestTracker(new Counter()).build();
    }

    @AfterAll
    static void close() {
        counted.close();
    }

    private CassandraLockStore a;
    private CassandraLockStore b;

    @BeforeEach
    void stores() throws LockManagerException {
        a = store();
        b = store();
    }

    private static int swaps(LockRequest request) {
        return count(swaps, request);
    }

    private static int reads(LockRequest request) {
        return count(reads, request);
    }

    private static int count(Map<String, AtomicInteger> counts, LockRequest request) {
        AtomicInteger count = counts.get(request.key().storageKey());
        return count == null ? 0 : count.get();
    }

    /** Waits until the tracker counted {@code expected} compare-and-sets of the key, then starts its count again. */
    private static void settled(LockRequest request, int expected) {
        await().atMost(Duration.ofSeconds(10)).until(() -> swaps(request) == expected);
        swaps.remove(request.key().storageKey());
        reads.remove(request.key().storageKey());
    }

    private static CassandraLockStore store() throws LockManagerException {
        CassandraLockStore store = CassandraLockStore.builder(counted).keyspace(CassandraCluster.KEYSPACE).table(TABLE)
                .maxClockSkew(Duration.ofMillis(50)).build();
        store.initialize();
        return store;
    }

    private static LockRequest request(String name, LockMode mode) {
        return LockRequest.of(new LockHandle(LockKey.dc("farm", "client", name), UUID.randomUUID().toString()),
                "node", Thread.currentThread().getName(), mode);
    }

    private static String fresh() {
        return "k-" + UUID.randomUUID();
    }

    @Test
    void aLockAndItsReleaseAreOnePaxosRoundEachOnANewKey() throws LockManagerException {
        LockRequest request = request(fresh(), LockMode.EXCLUSIVE);
        assertThat(a.acquire(request, LEASE).isAcquired()).isTrue();
        assertThat(a.release(request.handle())).isTrue();
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(10)).until(() -> swaps(request) == 2);
        assertThat(reads(request)).isZero();
    }

    @Test
    void aKeyAnotherNodeChangedCostsOneFailedRoundMore() throws LockManagerException {
        String name = fresh();
        LockRequest first = request(name, LockMode.EXCLUSIVE);
        a.acquire(first, LEASE);
        a.release(first.handle());
        settled(first, 2);
        LockRequest second = request(name, LockMode.EXCLUSIVE);
        assertThat(b.acquire(second, LEASE).isAcquired()).isTrue();
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(10)).until(() -> swaps(second) == 2);
        assertThat(reads(second)).isZero();
    }

    @Test
    void aRefusalIsTheFailedRoundItself() throws LockManagerException {
        String name = fresh();
        LockRequest holder = request(name, LockMode.EXCLUSIVE);
        a.acquire(holder, LEASE);
        settled(holder, 1);
        assertThat(b.acquire(request(name, LockMode.EXCLUSIVE), LEASE).record().handle())
                .isEqualTo(holder.handle());
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(10)).until(() -> swaps(holder) == 1);
        assertThat(reads(holder)).isZero();
    }

    @Test
    void renewalAndCheckAskEachKeyOnceInOneCall() throws LockManagerException {
        List<LockRequest> requests = new ArrayList<>();
        List<LockHandle> handles = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            LockRequest request = request(fresh(), LockMode.SHARED);
            a.acquire(request, LEASE);
            requests.add(request);
            handles.add(request.handle());
        }
        requests.forEach(request -> settled(request, 1));
        Map<LockHandle, HoldState> renewed = a.renew(handles, LEASE);
        assertThat(renewed).hasSize(20).allSatisfy((handle, state) -> assertThat(state).isEqualTo(HoldState.HELD));
        Map<LockHandle, HoldState> checked = a.check(handles);
        assertThat(checked).hasSize(20).allSatisfy((handle, state) -> assertThat(state).isEqualTo(HoldState.HELD));
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(10))
                .until(() -> requests.stream().allMatch(r -> swaps(r) == 1 && reads(r) == 1));
    }

    @Test
    void anIdleKeysStateExpiresAfterItsLastLeaseAndTheRetention() throws LockManagerException {
        LockRequest request = request(fresh(), LockMode.EXCLUSIVE);
        a.acquire(request, LEASE);
        int ttl = counted.execute("SELECT TTL(s) FROM " + CassandraCluster.KEYSPACE + "." + TABLE + " WHERE k = ?",
                request.key().storageKey()).one().getInt(0);
        // 30 s lease + 50 ms skew, rounded up, + 1 hour of retention
        assertThat(ttl).isBetween(3600 + 25, 3600 + 31);
        a.release(request.handle());
        ttl = counted.execute("SELECT TTL(s) FROM " + CassandraCluster.KEYSPACE + "." + TABLE + " WHERE k = ?",
                request.key().storageKey()).one().getInt(0);
        assertThat(ttl).isBetween(3600 - 5, 3601);
    }

    /**
     * A state cell of a format this release does not read (a later release wrote it) fails every call on it with
     * {@code UNREADABLE_RECORD} naming the format, at once (not retried), and is left as it was.
     */
    @Test
    void aCellOfALaterFormatIsReportedAsUnreadableAndLeftAsItIs() throws LockManagerException {
        String table = "lockmanager_unreadable";
        CassandraLockStore store = CassandraLockStore.builder(counted).keyspace(CassandraCluster.KEYSPACE).table(table)
                .build();
        store.initialize();
        LockRequest request = request(fresh(), LockMode.EXCLUSIVE);
        ByteBuffer later = ByteBuffer.wrap(new byte[]{2, 0, 0, 0, 0, 0, 0, 0, 7});
        counted.execute("INSERT INTO " + CassandraCluster.KEYSPACE + "." + table + " (k, s) VALUES (?, ?)",
                request.key().storageKey(), later);

        for (ThrowingCallable call : List.<ThrowingCallable>of(() -> store.acquire(request, LEASE),
                () -> store.read(request.key()), store::list, () -> store.markAbort(request.key()))) {
            assertThatThrownBy(call).isInstanceOfSatisfying(LockManagerException.class, e -> assertThat(e.getErrorCode())
                    .isEqualTo(LockManagerException.ErrorCode.UNREADABLE_RECORD)).hasMessageContaining("format 2");
        }
        // acquire: its one failed round; read: one read; abort: one serial read (nothing to mark on a state not known)
        await().atMost(Duration.ofSeconds(10)).until(() -> swaps(request) == 1 && reads(request) == 2);
        assertThat(swaps(request)).as("nothing asked again").isEqualTo(1);
        assertThat(reads(request)).isEqualTo(2);
        assertThat(counted.execute("SELECT s FROM " + CassandraCluster.KEYSPACE + "." + table + " WHERE k = ?",
                request.key().storageKey()).one().getByteBuffer(0)).isEqualTo(later);
        counted.execute("TRUNCATE " + CassandraCluster.KEYSPACE + "." + table);
    }

    @Test
    void aMissingKeyspaceIsRefusedByName() {
        CassandraLockStore store = CassandraLockStore.builder(counted).keyspace("no_such_keyspace").build();
        assertThatThrownBy(store::initialize).isInstanceOf(LockManagerException.class)
                .hasMessageContaining("keyspace 'no_such_keyspace' does not exist");
    }

    /** Cassandra refuses a keyspace naming an unknown data centre, but one can lose its last node there later. */
    @Test
    void aReplicationThatCannotServeALevelIsRefused() throws LockManagerException {
        CassandraSchema schema = new CassandraSchema(new CassandraAccess(counted, "ks", "t", LEASE,
                new io.github.lockmanager.store.support.RetryPolicy(1, Duration.ZERO, Duration.ZERO)));
        CassandraSchema.Topology twoCentres = new CassandraSchema.Topology("dc1", java.util.Set.of("dc1", "dc2"));
        assertThatThrownBy(() -> schema.checkReplication(Map.of("class",
                "org.apache.cassandra.locator.NetworkTopologyStrategy", "dc2", "3"), twoCentres))
                .isInstanceOf(LockManagerException.class)
                .hasMessageContaining("no replica in the local data centre 'dc1'");
        assertThatThrownBy(() -> schema.checkReplication(Map.of("class",
                "org.apache.cassandra.locator.SimpleStrategy", "replication_factor", "3"), twoCentres))
                .isInstanceOf(LockManagerException.class).hasMessageContaining("use NetworkTopologyStrategy");
        schema.checkReplication(Map.of("class", "org.apache.cassandra.locator.NetworkTopologyStrategy", "dc1", "3",
                "dc2", "3"), twoCentres);
        schema.checkReplication(Map.of("class", "org.apache.cassandra.locator.SimpleStrategy",
                "replication_factor", "1"), new CassandraSchema.Topology("dc1", java.util.Set.of("dc1")));
    }

    @Test
    void aTableOfAnotherLayoutIsRefused() {
        counted.execute("CREATE TABLE IF NOT EXISTS " + CassandraCluster.KEYSPACE + ".not_locks (k text PRIMARY KEY,"
                + " s text)");
        CassandraLockStore store = CassandraLockStore.builder(counted).keyspace(CassandraCluster.KEYSPACE)
                .table("not_locks").build();
        assertThatThrownBy(store::initialize).isInstanceOf(LockManagerException.class)
                .hasMessageContaining("column 's' is regular text");
    }

    @Test
    void badSettingsAreRefusedByName() {
        assertThatThrownBy(() -> CassandraLockStore.builder(counted).table("a-b"))
                .hasMessageContaining("table must be 1 to 48 letters");
        assertThatThrownBy(() -> CassandraLockStore.builder(counted).maxClockSkew(Duration.ofMinutes(2)))
                .hasMessageContaining("maxClockSkew");
        assertThatThrownBy(() -> CassandraLockStore.builder(counted).build())
                .hasMessageContaining("keyspace must be given");
    }
}
