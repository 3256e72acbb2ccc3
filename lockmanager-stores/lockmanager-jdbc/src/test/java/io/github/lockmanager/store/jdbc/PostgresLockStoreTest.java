package io.github.lockmanager.store.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.testing.support.InstrumentedStore;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class PostgresLockStoreTest extends JdbcLockStoreContract {
    PostgresLockStoreTest() {
        super(Database.POSTGRES);
    }

    /*
     * A waiter on another node polling every 10 minutes would first try again after 37 s at the earliest: taking the
     * lock within 10 s of the release means the release woke it (LISTEN/NOTIFY). The table is made without the
     * waiters column, as one made by an older version, and initialize() adds it. The release leaves the mark on the
     * free row and the next acquisition takes it off: the waiter's own release, unwaited for, notifies nobody.
     */
    @Test
    void aWaiterOnAnotherNodeIsWokenByTheReleaseInsteadOfItsPoll() throws Exception {
        assertWokenByTheRelease(Database.POSTGRES.shared());
    }

    /* LISTEN takes effect at its transaction's commit: on such a pool the listener listened to nothing before. */
    @Test
    void aWaiterIsWokenByTheReleaseAlsoWhenThePoolHandsOutConnectionsWithAutoCommitOff() throws Exception {
        try (HikariDataSource manualCommit = Database.POSTGRES.manualCommitPool(4)) {
            assertWokenByTheRelease(manualCommit);
        }
    }

    private static void assertWokenByTheRelease(HikariDataSource pool) throws Exception {
        String table = "lm_wake_" + UUID.randomUUID().toString().substring(0, 8);
        JdbcLockStore storeA = JdbcLockStore.builder(pool).tableName(table).build();
        JdbcLockStore storeB = JdbcLockStore.builder(pool).tableName(table).build();
        try {
            storeA.initialize();
            execute("ALTER TABLE " + table + " DROP COLUMN waiters");
            try (LockManager a = LockManagerBuilder.newBuilder().store(storeA).nodeId("a").build();
                 LockManager b = LockManagerBuilder.newBuilder().store(storeB).nodeId("b")
                         .waitPollInterval(Duration.ofMinutes(10)).build();
                 Connection listening = Database.POSTGRES.shared().getConnection();
                 Statement channel = listening.createStatement()) {
                channel.execute("LISTEN \"" + table + "\"");
                LockResource held = a.lock("job");
                CompletableFuture<LockResource> waiter = new CompletableFuture<>();
                Thread waiting = new Thread(() -> {
                    try {
                        waiter.complete(b.waitForLock(LockSpec.of("job"), Duration.ofMinutes(10)));
                    } catch (Exception e) {
                        waiter.completeExceptionally(e);
                    }
                }, "waiter-on-b");
                waiting.start();
                await().atMost(Duration.ofSeconds(30)).until(() -> marked(table));

                held.close();

                LockResource taken = waiter.get(10, TimeUnit.SECONDS);
                assertThat(taken.getHolder()).isSameAs(waiting);
                assertThat(marked(table)).as("the waiter's acquisition unmarked the row").isFalse();
                taken.close();
                a.lock("job").close();
                try {
                    // a round trip delivers what was sent before it
                    channel.execute("SELECT 1");
                    PGNotification[] sent = listening.unwrap(PGConnection.class).getNotifications();
                    assertThat(sent).as("notifications: the first release only").hasSize(1);
                } finally {
                    // the connection goes back to the shared pool
                    channel.execute("UNLISTEN *");
                }
            }
            storeB.close();
            assertThat(Thread.getAllStackTraces().keySet()).as("the listener stops with its store")
                    .noneMatch(t -> t.getName().equals("lockmanager-jdbc-" + table + "-listener"));
        } finally {
            storeA.close();
            storeB.close();
            execute("DROP TABLE IF EXISTS " + table);
            execute("DROP TABLE IF EXISTS " + table + "_holders");
        }
    }

    /*
     * A release need not wait for the flush (JdbcLockStore.Builder#durableReleases): its statement, exclusive or
     * shared, asks for that in its own transaction, acquisitions never do, and the pool's session keeps its own setting
     * afterwards (one connection, so the session asked is the one the store used). The database keeps no trace of how a
     * commit went, so the statements are read as sent.
     */
    @Test
    void aReleaseCommitsWithoutWaitingForTheFlushAndLeavesTheSessionAsItWas() throws Exception {
        StatementLog sent = releaseAndAcquire(false);
        assertThat(sent.containing("SET owner_token = NULL")).isNotEmpty().allMatch(sql -> sql.contains(ASYNC_COMMIT));
        assertThat(sent.containing("_holders WHERE lock_key = ? AND owner_token = ?")).as("a shared holder's release")
                .isNotEmpty().allMatch(sql -> sql.contains(ASYNC_COMMIT));
        assertThat(sent.containing("fencing_token = GREATEST")).isNotEmpty()
                .noneMatch(sql -> sql.contains(ASYNC_COMMIT));
    }

    @Test
    void durableReleasesWaitForTheFlush() throws Exception {
        StatementLog sent = releaseAndAcquire(true);
        assertThat(sent.containing("SET owner_token = NULL")).isNotEmpty();
        assertThat(sent.containing("synchronous_commit")).isEmpty();
    }

    private static final String ASYNC_COMMIT = "set_config('synchronous_commit', 'off', true)";

    private static StatementLog releaseAndAcquire(boolean durableReleases) throws Exception {
        String table = "lm_flush_" + UUID.randomUUID().toString().substring(0, 8);
        StatementLog sent = new StatementLog();
        try (HikariDataSource pool = Database.POSTGRES.pool(1)) {
            JdbcLockStore store = JdbcLockStore.builder(sent.wrap(pool)).tableName(table)
                    .durableReleases(durableReleases).build();
            try {
                store.initialize();
                try (LockManager manager = LockManagerBuilder.newBuilder().store(store).nodeId("a").build()) {
                    // a new row, then the free row it left, then a shared holder
                    manager.lock("job").close();
                    manager.lock("job").close();
                    manager.lock(LockSpec.shared("report")).close();
                }
                try (Connection c = pool.getConnection(); Statement s = c.createStatement();
                     ResultSet rs = s.executeQuery("SELECT current_setting('synchronous_commit') = "
                             + "(SELECT reset_val FROM pg_settings WHERE name = 'synchronous_commit')")) {
                    rs.next();
                    assertThat(rs.getBoolean(1)).as("the session's synchronous_commit after the store's calls")
                            .isTrue();
                }
            } finally {
                store.close();
                execute("DROP TABLE IF EXISTS " + table);
                execute("DROP TABLE IF EXISTS " + table + "_holders");
            }
        }
        return sent;
    }

    private static boolean marked(String table) throws Exception {
        try (Connection c = Database.POSTGRES.shared().getConnection(); Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("SELECT waiters FROM " + table + " WHERE lock_key LIKE '%#job'")) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    private static void execute(String sql) throws Exception {
        try (Connection c = Database.POSTGRES.shared().getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /*
     * The driver switches a statement to a server-side prepared one from its 5th execution on, and PostgreSQL
     * may then keep a generic plan costed while the table was small. force_generic_plan makes that happen at
     * once; the table then grows to 200,000 live rows. A renewal whose plan compares every row with a list of
     * parameters takes over a second per batch then, and the locks are lost; a lease of 3 s leaves a loaded machine
     * room enough that nothing else can lose them.
     */
    @Test
    void renewalStaysCheapOnAPlanCachedWhileTheTableWasSmall() throws Exception {
        String table = "lm_plan_" + UUID.randomUUID().toString().substring(0, 8);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(Database.POSTGRES.url());
        config.setUsername(Database.POSTGRES.user());
        config.setMaximumPoolSize(1);
        config.setConnectionInitSql("SET plan_cache_mode = force_generic_plan");
        List<LockLossReason> losses = new CopyOnWriteArrayList<>();
        try (HikariDataSource generic = new HikariDataSource(config)) {
            InstrumentedStore store = new InstrumentedStore(JdbcLockStore.builder(generic).tableName(table).build());
            try (LockManager node = LockManagerBuilder.newBuilder().store(store).nodeId("planned")
                    .lease(Duration.ofSeconds(3)).abortPollInterval(Duration.ofSeconds(5))
                    .lossListener((lock, holder, reason) -> losses.add(reason)).build()) {
                List<LockResource> held = new ArrayList<>();
                for (int i = 0; i < 400; i++) {
                    held.add(node.lock("k" + i));
                }
                // every batch statement has run often enough on the one connection to be prepared and planned
                await().atMost(Duration.ofSeconds(60)).until(() -> store.calls("renew") >= 16);
                try (Connection c = generic.getConnection(); Statement s = c.createStatement()) {
                    s.execute("INSERT INTO " + table + " SELECT 'XDC#pad#' || g, 'other-' || g, 'n', 't', 'RUNNING', 0, "
                            + "9000000000000, 1, 0 FROM generate_series(1, 200000) g");
                }
                long renewalsBefore = store.calls("renew");
                await().during(Duration.ofSeconds(8)).atMost(Duration.ofSeconds(20)).until(losses::isEmpty);
                System.out.printf("PostgreSQL, 400 locks among 200,000 live rows on a generic plan: %d renew calls "
                        + "in 8 s, %d losses%n", store.calls("renew") - renewalsBefore, losses.size());
                assertThat(held).noneMatch(LockResource::isLost);
                held.forEach(LockResource::close);
            }
        } finally {
            try (Connection c = Database.POSTGRES.shared().getConnection(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + table);
                s.execute("DROP TABLE IF EXISTS " + table + "_holders");
            }
        }
    }
}
