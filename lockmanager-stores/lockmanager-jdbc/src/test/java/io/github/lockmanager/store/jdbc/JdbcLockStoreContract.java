package io.github.lockmanager.store.jdbc;

import com.mchange.v2.c3p0.ComboPooledDataSource;
import com.zaxxer.hikari.HikariDataSource;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.Lock;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.TimeSource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.testing.StoredFormat;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The JDBC store's own promises, run on each database by a subclass naming it. */
abstract class JdbcLockStoreContract {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private final Database database;
    private JdbcLockStore store;

    JdbcLockStoreContract(Database database) {
        this.database = database;
    }

    @BeforeEach
    void createStore() throws LockManagerException {
        store = JdbcLockStore.builder(database.shared()).tableName("lockmanager_store").build();
        store.initialize();
    }

    private static LockKey key(String name) {
        return LockKey.xdc("store-test", name + "-" + UUID.randomUUID());
    }

    private static LockRequest request(LockKey key, String owner) {
        return LockRequest.of(new LockHandle(key, owner), "node-" + owner, "thread-" + owner, LockMode.EXCLUSIVE);
    }

    private LockManager manager(javax.sql.DataSource dataSource, String nodeId, String farmId, String clientId,
                                TimeSource time) throws LockManagerException {
        return LockManagerBuilder.newBuilder().store(JdbcLockStore.builder(dataSource).tableName("lockmanager_store")
                        .build()).nodeId(nodeId).farmId(farmId).clientId(clientId).timeSource(time)
                .lease(LEASE).abortPollInterval(Duration.ofMillis(200)).build();
    }

    /**
     * What docs/permits.md says a permit costs here: on a key whose row exists, a grant is four statements in one
     * transaction (lock the row, read the live holders, mark the row, insert the holder), a refusal two, and neither
     * tries the one-statement join of shared holders, which cannot count.
     */
    @Test
    void aPermitIsFourStatementsUnderTheRowsLockAndARefusalTwo() throws Exception {
        StatementLog sent = new StatementLog();
        JdbcLockStore counted = JdbcLockStore.builder(sent.wrap(database.shared())).tableName("lockmanager_store")
                .build();
        counted.initialize();
        LockKey key = key("permit-cost");
        LockHandle first = new LockHandle(key, "first");
        assertThat(counted.acquire(LockRequest.permit(first, "n", "t", 1), LEASE).isAcquired()).isTrue();
        assertThat(counted.release(first)).isTrue();

        int before = sent.containing("").size();
        LockHandle second = new LockHandle(key, "second");
        assertThat(counted.acquire(LockRequest.permit(second, "n", "t", 1), LEASE).isAcquired()).isTrue();
        List<String> grant = sent.containing("").subList(before, sent.containing("").size());
        assertThat(grant).hasSize(4);
        assertThat(grant.get(0)).contains("FOR UPDATE");
        assertThat(grant.get(1)).contains("_holders");
        assertThat(grant.get(2)).startsWith("UPDATE");
        assertThat(grant.get(3)).startsWith("INSERT");

        before = sent.containing("").size();
        assertThat(counted.acquire(LockRequest.permit(new LockHandle(key, "third"), "n", "t", 1), LEASE)
                .isAcquired()).isFalse();
        assertThat(sent.containing("").size() - before).as("statements of a refusal").isEqualTo(2);
        assertThat(counted.release(second)).isTrue();
    }

    /**
     * A fair try reads its key's line of requests before it tries (docs/requests.md's costs): the requests, permit
     * holders all, are read with one statement, the key's own row (never a holder's there) left alone; a lock key's
     * inspection still reads both.
     */
    @Test
    void aLineOfRequestsIsReadWithOneStatement() throws Exception {
        StatementLog sent = new StatementLog();
        JdbcLockStore counted = JdbcLockStore.builder(sent.wrap(database.shared())).tableName("lockmanager_store")
                .build();
        counted.initialize();
        LockKey line = key("line-cost").requests();
        LockHandle request = new LockHandle(line, "request");
        assertThat(counted.acquire(LockRequest.permit(request, "n", "t", 1000), LEASE).isAcquired()).isTrue();

        int before = sent.containing("").size();
        assertThat(counted.inspect(line)).extracting(LockRecord::handle).containsExactly(request);
        assertThat(sent.containing("").size() - before).as("statements of a line's read").isEqualTo(1);

        before = sent.containing("").size();
        counted.inspect(key("line-cost"));
        assertThat(sent.containing("").size() - before).as("statements of a lock key's inspection").isEqualTo(2);
        assertThat(counted.release(request)).isTrue();
    }

    @Test
    void nodesCreatingTheTableAtOnceAllSucceed() throws Exception {
        String table = "lm_concurrent_" + UUID.randomUUID().toString().substring(0, 8);
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<Boolean>> inits = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                inits.add(pool.submit(() -> {
                    JdbcLockStore node = JdbcLockStore.builder(database.shared()).tableName(table).build();
                    node.initialize();
                    return node.acquire(request(key("after-init"), "x"), LEASE).isAcquired();
                }));
            }
            for (Future<Boolean> init : inits) {
                assertThat(init.get()).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theLongestKeyWithTheLongestIdsFitsTheTable() throws Exception {
        String farm = "f".repeat(LockManagerBuilder.MAX_ID_LENGTH);
        String client = "c".repeat(LockManagerBuilder.MAX_ID_LENGTH - 8) + UUID.randomUUID().toString().substring(0, 8);
        String key = "€\uD83D\uDD12".repeat(LockManager.LOCK_KEY_MAX_LENGTH / 3) + "k";
        assertThat(key).hasSize(LockManager.LOCK_KEY_MAX_LENGTH);
        try (LockManager manager = manager(database.shared(), "n".repeat(128), farm, client, TimeSource.system());
             LockResource lock = manager.lock(key)) {
            assertThat(manager.getLocks()).extracting(Lock::getKey).containsExactly(key);
            assertThat(lock.isNewLock()).isTrue();
        }
    }

    @Test
    void keysThatACaseOrPadInsensitiveCollationWouldMergeStayApart() throws Exception {
        String prefix = UUID.randomUUID().toString().substring(0, 8);
        List<String> names = List.of("a", "A", "a ", "á", "ä", "a\t");
        for (String name : names) {
            assertThat(store.acquire(request(LockKey.xdc("case", prefix + name), "o" + name.hashCode()), LEASE)
                    .isAcquired()).as("'%s' is its own lock", name).isTrue();
        }
        assertThat(store.list()).filteredOn(r -> r.key().name().startsWith(prefix)).hasSize(names.size());
    }

    /*
     * Leases are judged by the database clock only: no node clock enters a record, so nodes whose clocks disagree
     * still exclude each other. The lock time and the lease end are the database's own time.
     */
    @Test
    void locksAreStampedAndExpiredByTheDatabaseClock() throws Exception {
        String client = "dbclock-" + UUID.randomUUID().toString().substring(0, 8);
        try (LockManager one = manager(database.shared(), "one", "farm", client, TimeSource.system());
             LockManager two = manager(database.shared(), "two", "farm", client, TimeSource.system())) {
            Instant before = databaseNow();
            LockResource held = one.lock("job");
            Instant after = databaseNow();
            assertThatThrownBy(() -> two.lock("job")).isInstanceOf(AlreadyLockedException.class);

            Lock seen = two.getLocks().get(0);
            assertThat(seen.getLockTime()).as("stamped by the database clock").isBetween(before, after);
            assertThat(Duration.between(seen.getLockTime(), seen.getExpirationTime())).isEqualTo(LEASE);
            held.close();
            try (LockResource again = two.lock("job")) {
                assertThat(again.isNewLock()).isTrue();
            }
        }
    }

    /**
     * The stored format, pinned: rows inserted column by column as a release of this store wrote them (the key's row,
     * and for shared and permit holders their rows in the holders table, the mode as its text) are read, respected,
     * renewed and released by this one. A change of format fails here, not in a cluster that upgrades node by node.
     */
    @Test
    void rowsOfFormatOneAreRead() throws Exception {
        String client = "fmt-" + UUID.randomUUID().toString().substring(0, 8);
        LockKey job = LockKey.dc("farm-1", client, "order-7");
        LockKey pool = LockKey.xdc(client, "pool");
        long now = databaseNow().toEpochMilli();
        long end = now + 60_000;
        try (Connection c = database.shared().getConnection(); java.sql.Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO lockmanager_store (lock_key, owner_token, node_id, thread_name, status, "
                    + "lock_time, expires_at, fencing_token, last_modified) VALUES ('DC#farm-1#" + client
                    + "#order-7', 'writer-1', 'node-a', 'thread-1', 'RUNNING', 1700000000000, " + end
                    + ", 1700000000000041, " + now + ")");
            s.executeUpdate("INSERT INTO lockmanager_store (lock_key, owner_token, node_id, thread_name, status, "
                    + "lock_time, expires_at, fencing_token, last_modified) VALUES ('XDC#" + client + "#pool', "
                    + "'~permit', NULL, NULL, 'RUNNING', 1700000000000, " + end + ", 21, " + now + ")");
            s.executeUpdate("INSERT INTO lockmanager_store_holders (lock_key, owner_token, lock_mode, node_id, "
                    + "thread_name, status, lock_time, expires_at, fencing_token) VALUES ('XDC#" + client + "#pool', "
                    + "'permit-1', 'PERMIT:2', 'c', 'z', 'RUNNING', 1700000000000, " + end + ", 21)");
        }
        LockRecord writer = store.inspect(job).get(0);
        assertThat(writer.expirationTime()).isEqualTo(Instant.ofEpochMilli(end));
        StoredFormat.readsExclusive(store, job, "writer-1", "node-a", "thread-1", 1700000000000L, 1700000000000041L,
                1700000000000041L);
        LockHandle second = StoredFormat.readsPermit(store, pool, "permit-1", 2, "z");
        LockHandle first = new LockHandle(pool, "permit-1");
        assertThat(store.renew(List.of(first), LEASE)).containsEntry(first, HoldState.HELD);
        assertThat(store.release(first)).isTrue();
        assertThat(store.release(second)).isTrue();
    }

    private Instant databaseNow() throws java.sql.SQLException {
        try (Connection c = database.shared().getConnection(); java.sql.Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery(database.clockQuery())) {
            rs.next();
            return Instant.ofEpochMilli(rs.getLong(1));
        }
    }

    @Test
    void aBatchOfAnySizeGetsOneAnswerPerLock() throws Exception {
        List<LockHandle> handles = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            handles.add(store.acquire(request(key("batch" + i), "o" + i), LEASE).record().handle());
        }
        store.release(handles.get(4));
        store.markAbort(handles.get(1).key());

        Map<LockHandle, HoldState> renewed = store.renew(handles, LEASE);
        Map<LockHandle, HoldState> checked = store.check(handles);

        for (Map<LockHandle, HoldState> answers : List.of(renewed, checked)) {
            assertThat(answers).hasSize(5).containsEntry(handles.get(4), HoldState.LOST)
                    .containsEntry(handles.get(1), HoldState.ABORT_REQUESTED)
                    .containsEntry(handles.get(0), HoldState.HELD);
        }
    }

    @Test
    void anExhaustedPoolFailsCallsClearlyAndLeaksNothing() throws Exception {
        try (HikariDataSource tiny = database.pool(2)) {
            String client = "pool-" + UUID.randomUUID().toString().substring(0, 8);
            AtomicInteger taken = new AtomicInteger();
            AtomicInteger unexpected = new AtomicInteger();
            List<LockManager> nodes = new ArrayList<>();
            for (int n = 0; n < 3; n++) {
                nodes.add(manager(tiny, "node" + n, "farm", client, TimeSource.system()));
            }
            ExecutorService workers = Executors.newFixedThreadPool(12);
            for (int w = 0; w < 12; w++) {
                LockManager node = nodes.get(w % 3);
                workers.submit(() -> {
                    for (int i = 0; i < 30; i++) {
                        try (LockResource lock = node.lock("hot-" + (i % 3))) {
                            taken.incrementAndGet();
                        } catch (AlreadyLockedException e) {
                            // contention is expected
                        } catch (Exception e) {
                            unexpected.incrementAndGet();
                        }
                    }
                });
            }
            workers.shutdown();
            assertThat(workers.awaitTermination(2, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
            nodes.forEach(LockManager::close);

            System.out.printf("%s, pool of 2, 12 threads: %d locks taken, %d calls failed waiting for a connection%n",
                    database, taken.get(), unexpected.get());
            assertThat(taken.get()).isPositive();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> tiny.getHikariPoolMXBean().getActiveConnections() == 0);

            // every connection held elsewhere: calls fail with a connection error, and work again afterwards
            JdbcLockStore starved = JdbcLockStore.builder(tiny).tableName("lockmanager_store").build();
            try (Connection one = tiny.getConnection(); Connection two = tiny.getConnection()) {
                assertThatThrownBy(() -> starved.read(key("starved")))
                        .isInstanceOfSatisfying(LockManagerException.class, e ->
                                assertThat(e.getErrorCode()).isIn(ErrorCode.CONNECTION_ERROR, ErrorCode.RETRIES_EXHAUSTED));
            }
            assertThat(starved.read(key("fed"))).isEmpty();
            assertThat(tiny.getHikariPoolMXBean().getActiveConnections()).isZero();
        }
    }

    @Test
    void idleRowsArePurgedAndTheirKeysComeBackWithHigherFencingTokens() throws Exception {
        JdbcLockStore purging = purgingStore();
        LockKey key = key("purged");
        LockHandle first = purging.acquire(request(key, "first"), LEASE).record().handle();
        long firstToken = purging.read(key).orElseThrow().fencingToken();
        assertThat(purging.release(first)).isTrue();
        assertThat(rowsOf(key)).as("a released row stays until it has been idle for the retention").isEqualTo(1);

        await().atMost(Duration.ofSeconds(20)).until(() -> purging.purgeIdleRecords() >= 0 && rowsOf(key) == 0);

        AcquireResult again = purging.acquire(request(key, "again"), LEASE);
        assertThat(again.isAcquired()).isTrue();
        System.out.printf("%s: token %d before the row was purged, %d after%n", database, firstToken,
                again.record().fencingToken());
        assertThat(again.record().fencingToken()).as("a token never goes back, also after its row was deleted")
                .isGreaterThan(firstToken);
        purging.release(again.record().handle());
    }

    @Test
    void aLiveLockIsNeverPurged() throws Exception {
        JdbcLockStore purging = purgingStore();
        LockKey key = key("live");
        LockHandle held = purging.acquire(request(key, "holder"), LEASE).record().handle();

        // idle for longer than the retention, but its lease runs for 30 s
        await().during(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(10)).until(() -> {
            purging.purgeIdleRecords();
            return purging.read(key).isPresent();
        });
        assertThat(purging.release(held)).isTrue();
    }

    @Test
    void aPoolThatHandsOutDroppedConnectionsCostsNoLock() throws Exception {
        assumeTrue(database.canDropSessions(), database + " in memory has no server sessions to drop");
        // c3p0's defaults: connections are not tested on checkout; one that failed with a connection error is dropped
        ComboPooledDataSource untested = new ComboPooledDataSource();
        untested.setJdbcUrl(database.url());
        untested.setUser(database.user());
        untested.setPassword("");
        untested.setInitialPoolSize(4);
        untested.setMinPoolSize(4);
        untested.setMaxPoolSize(4);
        List<LockLossReason> losses = new java.util.concurrent.CopyOnWriteArrayList<>();
        String client = "dropped-" + UUID.randomUUID().toString().substring(0, 8);
        try (LockManager a = LockManagerBuilder.newBuilder().store(JdbcLockStore.builder(untested)
                        .tableName("lockmanager_store").build()).clientId(client).nodeId("a")
                .lease(Duration.ofSeconds(3)).lossListener((lock, holder, reason) -> losses.add(reason)).build();
             LockManager b = manager(database.shared(), "b", "default", client, TimeSource.system());
             LockResource job = a.lock("job")) {
            List<Connection> all = new ArrayList<>();
            List<Long> sessions = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                all.add(untested.getConnection());
                sessions.add(database.sessionId(all.get(i)));
            }
            for (Connection c : all) {
                c.close();
            }
            for (long session : sessions) {
                database.dropSession(session);
            }

            try (LockResource right = a.lock("right-after-the-drop")) {
                assertThat(right.isNewLock()).as("lock() right after the drop").isTrue();
            }
            // two leases of renewals on a pool whose every idle connection was dead
            await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(12))
                    .until(() -> losses.isEmpty() && !job.isLost());
            assertThatThrownBy(() -> b.lock("job")).isInstanceOf(AlreadyLockedException.class);
        } finally {
            untested.close();
        }
    }

    @Test
    void aTableCreatedFromTheShippedDdlFileIsAccepted() throws Exception {
        String table = "lm_ddl_" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection c = database.shared().getConnection(); java.sql.Statement s = c.createStatement()) {
            for (String ddl : database.shippedDdl().replaceAll("(?m)^--.*$", "").replace("lockmanager_locks", table).split(";")) {
                if (!ddl.isBlank()) {
                    s.execute(ddl);
                }
            }
        }
        try {
            JdbcLockStore fromFile = JdbcLockStore.builder(database.shared()).tableName(table).build();
            fromFile.initialize();
            LockKey key = key("ddl");
            LockHandle held = fromFile.acquire(request(key, "o"), LEASE).record().handle();
            assertThat(fromFile.release(held)).isTrue();
        } finally {
            try (Connection c = database.shared().getConnection(); java.sql.Statement s = c.createStatement()) {
                s.execute("DROP TABLE " + table);
                s.execute("DROP TABLE " + table + "_holders");
            }
        }
    }

    @Test
    void aLockTableOfAnEarlierVersionGetsItsHoldersTableOnInitialize() throws Exception {
        String table = "lm_old_" + UUID.randomUUID().toString().substring(0, 8);
        String lockTableOnly = database.shippedDdl().replaceAll("(?m)^--.*$", "").replace("lockmanager_locks", table)
                .split(";")[0];
        try (Connection c = database.shared().getConnection(); java.sql.Statement s = c.createStatement()) {
            s.execute(lockTableOnly);
        }
        try {
            JdbcLockStore upgraded = JdbcLockStore.builder(database.shared()).tableName(table).build();
            upgraded.initialize();
            LockKey key = key("old");
            LockRequest reader = LockRequest.of(new LockHandle(key, "r"), "n", "t", LockMode.SHARED);
            assertThat(upgraded.acquire(reader, LEASE).isAcquired()).isTrue();
            assertThat(upgraded.acquire(request(key, "w"), LEASE).isAcquired()).as("a writer while a reader holds")
                    .isFalse();
            assertThat(upgraded.release(reader.handle())).isTrue();
            assertThat(upgraded.acquire(request(key, "w"), LEASE).isAcquired()).isTrue();
        } finally {
            try (Connection c = database.shared().getConnection(); java.sql.Statement s = c.createStatement()) {
                s.execute("DROP TABLE " + table);
                s.execute("DROP TABLE IF EXISTS " + table + "_holders");
            }
        }
    }

    /** The test table's store with a retention short enough for a test to see rows purged. */
    private JdbcLockStore purgingStore() {
        return JdbcLockStore.builder(database.shared()).tableName("lockmanager_store")
                .idleRecordRetention(Duration.ofSeconds(1)).build();
    }

    private int rowsOf(LockKey key) throws java.sql.SQLException {
        try (Connection c = database.shared().getConnection();
             java.sql.PreparedStatement count = c.prepareStatement("SELECT COUNT(*) FROM lockmanager_store WHERE lock_key = ?")) {
            count.setString(1, key.storageKey());
            try (java.sql.ResultSet rs = count.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}
