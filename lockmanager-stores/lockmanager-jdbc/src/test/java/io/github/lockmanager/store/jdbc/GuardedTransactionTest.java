package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Transactions guarded by a lock, on the real databases: work commits only under a lock that was the acquisition's
 * the whole time, the release can be part of the commit, and hold counts stay right whatever the outcome.
 */
class GuardedTransactionTest {
    private static final String TABLE = "lockmanager_guarded";
    private static final String DATA = "lockmanager_guarded_data";
    /** Short enough to run out inside a test, long enough for a loaded machine to renew it. */
    private static final Duration SHORT_LEASE = Duration.ofMillis(1500);

    private final List<AutoCloseable> toClose = new ArrayList<>();
    /**
     * Locks taken where the holder must outlive a loss: the loss interrupts the holder, and a pool's thread survives
     * an interrupt where a test thread's waits would not.
     */
    private final ExecutorService holderThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "guarded-holder"));

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        holderThread.shutdownNow();
    }

    @AfterAll
    static void dropTables() throws SQLException {
        for (Database database : List.of(Database.POSTGRES, Database.MARIADB)) {
            try (Connection c = database.shared().getConnection(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + DATA);
            }
        }
    }

    private JdbcLockStore store(Database database) throws LockManagerException, SQLException {
        // a renewal blocked by the guarded row gives up after 1 s rather than the default 5 s: the losses come sooner
        JdbcLockStore store = JdbcLockStore.builder(database.shared()).tableName(TABLE)
                .operationTimeout(Duration.ofSeconds(1)).build();
        store.initialize();
        try (Connection c = database.shared().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + DATA + " (id VARCHAR(64) NOT NULL PRIMARY KEY)");
        }
        return store;
    }

    private LockManager manager(JdbcLockStore store, String node, Duration lease) throws LockManagerException {
        LockManager manager = LockManagerBuilder.newBuilder().store(store).nodeId(node).clientId("guarded")
                .lease(lease).abortPollInterval(Duration.ofMillis(100)).build();
        toClose.add(manager);
        return manager;
    }

    private Connection transaction(Database database) throws SQLException {
        Connection c = database.shared().getConnection();
        toClose.add(c);
        c.setAutoCommit(false);
        return c;
    }

    private LockResource lockOnHolderThread(LockManager manager, String key) throws Exception {
        return holderThread.submit(() -> manager.lock(key)).get(30, TimeUnit.SECONDS);
    }

    private static String id() {
        return UUID.randomUUID().toString();
    }

    private static void insert(Connection c, String id) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + DATA + " (id) VALUES (?)")) {
            insert.setString(1, id);
            insert.executeUpdate();
        }
    }

    private static boolean committed(Database database, String id) throws SQLException {
        try (Connection c = database.shared().getConnection();
             PreparedStatement read = c.prepareStatement("SELECT id FROM " + DATA + " WHERE id = ?")) {
            read.setString(1, id);
            try (ResultSet rs = read.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** Whether the lock row of {@code key} shows its lease ended, read without waiting for the row's lock. */
    private static boolean leaseEnded(Database database, String key) throws SQLException {
        try (Connection c = database.shared().getConnection();
             PreparedStatement read = c.prepareStatement("SELECT expires_at FROM " + TABLE + " WHERE lock_key = ?");
             Statement clock = c.createStatement()) {
            read.setString(1, "DC#default#guarded#" + key);
            try (ResultSet row = read.executeQuery(); ResultSet now = clock.executeQuery(database.clockQuery())) {
                return row.next() & now.next() && row.getLong(1) <= now.getLong(1);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"POSTGRES", "MARIADB"})
    void aGuardedCommitLandsTheWorkAndKeepsTheLock(Database database) throws Exception {
        LockManager node = manager(store(database), "node-a", Duration.ofSeconds(30));
        String key = "order-" + id();
        String work = id();
        LockResource held = node.lock(key);
        Connection c = transaction(database);
        try (GuardedTransaction tx = store(database).guard(c, held)) {
            insert(c, work);
            tx.commit();
        }
        assertThat(committed(database, work)).isTrue();
        assertHeldUntilClosed(node, held, key);
    }

    /** {@code held} still holds {@code key}, and the key is free once it is closed. */
    private static void assertHeldUntilClosed(LockManager node, LockResource held, String key) throws Exception {
        assertThat(held.isClosed()).isFalse();
        assertThat(node.getLocks()).anyMatch(lock -> lock.getKey().equals(key));
        held.close();
        assertThat(node.isLocked(key)).isFalse();
    }

    /**
     * The lease runs out while the guarded transaction is open: the holder is told (lost), a contender on another
     * node does not get the lock while the transaction can still commit, the commit is refused and rolled back, and
     * the next holder sees nothing of the work.
     */
    @ParameterizedTest
    @EnumSource(names = {"POSTGRES", "MARIADB"})
    void aHolderWhoseLeaseRanOutCannotCommitAndTheNextHolderSeesNothing(Database database) throws Exception {
        JdbcLockStore store = store(database);
        LockManager holderNode = manager(store, "node-a", SHORT_LEASE);
        LockManager contenderNode = manager(store(database), "node-b", Duration.ofSeconds(30));
        String key = "order-" + id();
        String work = id();
        LockResource held = lockOnHolderThread(holderNode, key);
        Connection c = transaction(database);
        GuardedTransaction tx = store.guard(c, held);
        toClose.add(tx);
        insert(c, work);
        await().atMost(Duration.ofSeconds(30)).until(() -> leaseEnded(database, key) && held.isLost());

        assertThatThrownBy(() -> contenderNode.lock(key)).isInstanceOf(LockException.class);
        assertThatThrownBy(tx::commit).isInstanceOf(LockLostException.class).hasMessageContaining(key)
                .hasMessageContaining("rolled back");
        assertThat(committed(database, work)).isFalse();
        try (LockResource next = await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .until(() -> contenderNode.lock(key), r -> r != null)) {
            assertThat(next.getFencingToken()).isGreaterThan(held.getFencingToken());
            assertThat(committed(database, work)).isFalse();
        }
    }

    /**
     * Commits timed around the end of the lease, against a contender trying all the while: the contender, once it
     * has the lock, sees the work exactly when the commit reported success.
     */
    @ParameterizedTest
    @EnumSource(names = {"POSTGRES", "MARIADB"})
    void aGuardedCommitRacingATakeoverCommitsWithTheLockOrNotAtAll(Database database) throws Exception {
        JdbcLockStore store = store(database);
        LockManager holderNode = manager(store, "node-a", SHORT_LEASE);
        LockManager contenderNode = manager(store(database), "node-b", Duration.ofSeconds(30));
        int committedRounds = 0;
        int refusedRounds = 0;
        for (int round = 0; round < 8; round++) {
            String key = "race-" + id();
            String work = id();
            LockResource held = lockOnHolderThread(holderNode, key);
            CompletableFuture<Boolean> contenderSawWork = CompletableFuture.supplyAsync(() -> {
                while (true) {
                    try (LockResource ignored = contenderNode.lock(key)) {
                        return committed(database, work);
                    } catch (LockException | SQLException e) {
                        Thread.onSpinWait();
                    }
                }
            });
            boolean committed;
            try (Connection c = database.shared().getConnection()) {
                c.setAutoCommit(false);
                committed = commitAroundTheLeaseEnd(database, store, c, held, key, work, round % 2 == 1);
            }
            held.close();
            assertThat(contenderSawWork.get(60, TimeUnit.SECONDS)).as("round %d", round).isEqualTo(committed);
            if (committed) {
                committedRounds++;
            } else {
                refusedRounds++;
            }
        }
        assertThat(committedRounds).isPositive();
        assertThat(refusedRounds).isPositive();
    }

    /** Whether the guarded commit went through; {@code late}: only once the lease has run out. */
    private static boolean commitAroundTheLeaseEnd(Database database, JdbcLockStore store, Connection c,
                                                   LockResource held, String key, String work, boolean late)
            throws Exception {
        try (GuardedTransaction tx = store.guard(c, held)) {
            insert(c, work);
            if (late) {
                await().atMost(Duration.ofSeconds(30)).until(() -> leaseEnded(database, key));
            }
            try {
                tx.commit();
                return true;
            } catch (LockLostException e) {
                return false;
            }
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"POSTGRES", "MARIADB"})
    void commitAndReleaseFreesTheLockInTheSameCommitAndGivesBackTheHold(Database database) throws Exception {
        Scene scene = scene(database);
        JdbcLockStore store = scene.store;
        LockManager node = scene.node;
        LockManager other = scene.other;
        String key = scene.key;
        String work = scene.work;
        LockResource held = scene.held;
        StatementLog sent = new StatementLog();
        Connection c = sent.wrap(transaction(database));
        try (GuardedTransaction tx = store.guard(c, held)) {
            insert(c, work);
            tx.commitAndRelease();
        }
        assertThat(committed(database, work)).isTrue();
        // the work's commit waits for the flush as the caller's session says, whatever the store's own releases do
        assertThat(sent.containing("SET owner_token = NULL")).isNotEmpty()
                .noneMatch(sql -> sql.contains("synchronous_commit"));
        assertThat(held.isClosed()).isTrue();
        assertThat(node.getLocks()).noneMatch(lock -> lock.getKey().equals(key));
        try (LockResource next = other.lock(key)) {
            assertThat(next.getFencingToken()).isGreaterThan(held.getFencingToken());
        }
        try (LockResource again = node.lock(key)) {
            assertThat(again.isNewLock()).isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"POSTGRES", "MARIADB"})
    void aCommitThatFailsWithItsConnectionRollsBackAndReleasesTheLockApart(Database database) throws Exception {
        Scene dropped = commitAndReleaseOnADroppedSession(database, false);
        assertThat(dropped.held.isClosed()).isTrue();
        try (LockResource next = dropped.other.lock(dropped.key)) {
            assertThat(next.isNewLock()).isTrue();
        }
    }

    /** Two nodes on a store, a key, a unit of work's id, and the key held by the first node. */
    private record Scene(JdbcLockStore store, LockManager node, LockManager other, String key, String work,
                         LockResource held) {
    }

    private Scene scene(Database database) throws Exception {
        JdbcLockStore store = store(database);
        LockManager node = manager(store, "node-a", Duration.ofSeconds(30));
        LockManager other = manager(store(database), "node-b", Duration.ofSeconds(30));
        String key = "order-" + id();
        return new Scene(store, node, other, key, id(), node.lock(key));
    }

    /** A commit-with-release whose session the server dropped just before. */
    private Scene commitAndReleaseOnADroppedSession(Database database, boolean keepLock) throws Exception {
        Scene scene = scene(database);
        Connection c = transaction(database);
        try (GuardedTransaction tx = scene.store.guard(c, scene.held)) {
            insert(c, scene.work);
            database.dropSession(database.sessionId(c));
            assertThatThrownBy(() -> tx.commitAndRelease(keepLock)).isInstanceOf(SQLException.class);
        }
        assertThat(committed(database, scene.work)).isFalse();
        return scene;
    }

    @ParameterizedTest
    @EnumSource(names = {"POSTGRES", "MARIADB"})
    void aFailedCommitCanKeepTheLockAsItWas(Database database) throws Exception {
        Scene dropped = commitAndReleaseOnADroppedSession(database, true);
        JdbcLockStore store = dropped.store;
        LockManager node = dropped.node;
        LockManager other = dropped.other;
        String key = dropped.key;
        String work = dropped.work;
        LockResource held = dropped.held;
        assertThat(held.isClosed()).isFalse();
        assertThatThrownBy(() -> other.lock(key)).isInstanceOf(LockException.class);
        try (LockResource reentry = node.lock(key)) {
            assertThat(reentry.isNewLock()).isFalse();
        }
        // the hold is renewed and checked again: the retried work commits under it
        Connection retry = transaction(database);
        try (GuardedTransaction tx = store.guard(retry, held)) {
            insert(retry, work);
            tx.commitAndRelease();
        }
        assertThat(committed(database, work)).isTrue();
        try (LockResource next = other.lock(key)) {
            assertThat(next.isNewLock()).isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"POSTGRES", "MARIADB"})
    void workThatThrowsIsRolledBackByCloseAndTheLockKept(Database database) throws Exception {
        JdbcLockStore store = store(database);
        LockManager node = manager(store, "node-a", Duration.ofSeconds(30));
        String key = "order-" + id();
        String work = id();
        LockResource held = node.lock(key);
        Connection c = transaction(database);
        assertThatThrownBy(() -> {
            try (GuardedTransaction tx = store.guard(c, held)) {
                insert(c, work);
                insert(c, work);
                tx.commit();
            }
        }).isInstanceOf(SQLException.class);
        assertThat(committed(database, work)).isFalse();
        assertHeldUntilClosed(node, held, key);
    }

    @ParameterizedTest
    @EnumSource(names = {"POSTGRES", "MARIADB"})
    void commitAndReleaseOfAReenteredLockCommitsAndKeepsItForTheOtherHold(Database database) throws Exception {
        JdbcLockStore store = store(database);
        LockManager node = manager(store, "node-a", Duration.ofSeconds(30));
        String key = "order-" + id();
        String work = id();
        LockResource outer = node.lock(key);
        LockResource inner = node.lock(key);
        Connection c = transaction(database);
        try (GuardedTransaction tx = store.guard(c, inner)) {
            insert(c, work);
            tx.commitAndRelease();
        }
        assertThat(committed(database, work)).isTrue();
        assertThat(inner.isClosed()).isTrue();
        assertHeldUntilClosed(node, outer, key);
    }

    /**
     * A guarded row stays locked for the whole transaction; renewing it would wait for the transaction and hold up
     * every lock of its batch. The node's other locks are renewed all the while, and only the guarded one runs out.
     */
    @ParameterizedTest
    @EnumSource(names = {"POSTGRES", "MARIADB"})
    void otherLocksOfTheNodeAreRenewedWhileAGuardedTransactionOutlivesItsLease(Database database) throws Exception {
        JdbcLockStore store = store(database);
        LockManager node = manager(store, "node-a", SHORT_LEASE);
        LockResource guardedLock = lockOnHolderThread(node, "guarded-" + id());
        LockResource other = lockOnHolderThread(node, "other-" + id());
        Connection c = transaction(database);
        try (GuardedTransaction ignored = store.guard(c, guardedLock)) {
            await().atMost(Duration.ofSeconds(30)).until(guardedLock::isLost);
            await().during(SHORT_LEASE.multipliedBy(2)).atMost(SHORT_LEASE.multipliedBy(4))
                    .until(() -> !other.isLost());
        }
        assertThat(other.isLost()).isFalse();
    }

    @Test
    void badUseIsRefusedNamingWhatIsWrong() throws Exception {
        Database database = Database.POSTGRES;
        JdbcLockStore store = store(database);
        LockManager node = manager(store, "node-a", Duration.ofSeconds(30));
        try (Connection auto = database.shared().getConnection(); LockResource held = node.lock("bad-" + id())) {
            assertThatThrownBy(() -> store.guard(auto, held)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("auto-commit");
        }
        Connection c = transaction(database);
        try (LockResource shared = node.lock(LockSpec.shared("shared-" + id()))) {
            assertThatThrownBy(() -> store.guard(c, shared)).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("SHARED");
        }
        LockResource closed = node.lock("closed-" + id());
        closed.close();
        assertThatThrownBy(() -> store.guard(c, closed)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> store.guard(null, closed)).hasMessageContaining("connection");
        try (LockResource held = node.lock("twice-" + id());
             GuardedTransaction tx = store.guard(c, held)) {
            tx.commit();
            assertThatThrownBy(tx::commit).isInstanceOf(IllegalStateException.class).hasMessageContaining("ended");
        }
    }
}
