package io.github.lockmanager.store.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class MariaDbLockStoreTest extends JdbcLockStoreContract {
    /** 2026-11-01 01:30 in New York, the second time: the repeated hour after daylight saving time ends. */
    private static final Instant IN_THE_REPEATED_HOUR = Instant.parse("2026-11-01T06:30:00Z");

    MariaDbLockStoreTest() {
        super(Database.MARIADB);
    }

    @Test
    void anExistingTableWhoseKeyCollationMergesKeysIsRefused() throws Exception {
        for (String collation : new String[]{"utf8mb4_general_ci", "utf8mb4_bin"}) {
            String table = "lm_collation_" + UUID.randomUUID().toString().substring(0, 8);
            execute("CREATE TABLE " + table + " (lock_key VARCHAR(400) CHARACTER SET utf8mb4 COLLATE " + collation
                    + " NOT NULL PRIMARY KEY, owner_token VARCHAR(64), node_id VARCHAR(128), thread_name VARCHAR(256), "
                    + "status VARCHAR(8) NOT NULL, lock_time BIGINT NOT NULL, expires_at BIGINT NOT NULL, "
                    + "fencing_token BIGINT NOT NULL, last_modified BIGINT NOT NULL)");
            try {
                JdbcLockStore store = JdbcLockStore.builder(Database.MARIADB.shared()).tableName(table).build();
                assertThatThrownBy(store::initialize).isInstanceOfSatisfying(LockManagerException.class, e -> {
                    assertThat(e.getErrorCode()).isEqualTo(ErrorCode.TABLE_CREATION_ERROR);
                    assertThat(e).hasMessageContaining("collation " + collation)
                            .hasMessageContaining("'a' and 'A', 'a' and 'a ', or 'e' and 'é' are one lock");
                });
            } finally {
                execute("DROP TABLE " + table);
            }
        }
    }

    /** A holders table made by hand beside a good lock table is checked as the lock table is. */
    @Test
    void anExistingHoldersTableWhoseKeyCollationMergesKeysIsRefused() throws Exception {
        String table = "lm_holders_" + UUID.randomUUID().toString().substring(0, 8);
        execute("CREATE TABLE " + table + "_holders (lock_key VARCHAR(400) CHARACTER SET utf8mb4 COLLATE "
                + "utf8mb4_general_ci NOT NULL, owner_token VARCHAR(64) NOT NULL, node_id VARCHAR(128), thread_name "
                + "VARCHAR(256), status VARCHAR(8) NOT NULL, lock_time BIGINT NOT NULL, expires_at BIGINT NOT NULL, "
                + "fencing_token BIGINT NOT NULL, lock_mode VARCHAR(16) NOT NULL, PRIMARY KEY (lock_key, owner_token))");
        try {
            JdbcLockStore store = JdbcLockStore.builder(Database.MARIADB.shared()).tableName(table).build();
            assertThatThrownBy(store::initialize).isInstanceOfSatisfying(LockManagerException.class, e -> {
                assertThat(e.getErrorCode()).isEqualTo(ErrorCode.TABLE_CREATION_ERROR);
                assertThat(e).hasMessageContaining("in its holders table " + table + "_holders, lock_key has collation "
                        + "utf8mb4_general_ci");
            });
        } finally {
            execute("DROP TABLE IF EXISTS " + table + "_holders");
            execute("DROP TABLE IF EXISTS " + table);
        }
    }

    /** MariaDB 10.5+ returns the row from its upsert: no read-back, and a refusal names the holder from it. */
    @Test
    void anAcquireIsOneStatementWhetherItTakesTheKeyOrIsRefused() throws Exception {
        try (HikariDataSource one = onePool()) {
            JdbcLockStore store = JdbcLockStore.builder(one).tableName("lockmanager_store").build();
            store.initialize();
            LockKey key = LockKey.xdc("store-test", "one-statement-" + UUID.randomUUID());
            LockHandle first = new LockHandle(key, "first");
            long before = statementsOf(one);
            assertThat(store.acquire(LockRequest.of(first, "node-a", "thread-a", LockMode.EXCLUSIVE), Duration.ofSeconds(30)).isAcquired())
                    .isTrue();
            long afterTaking = statementsOf(one);
            AcquireResult refused = store.acquire(LockRequest.of(new LockHandle(key, "second"), "node-b", "thread-b", LockMode.EXCLUSIVE),
                    Duration.ofSeconds(30));
            long afterRefusal = statementsOf(one);
            assertThat(refused.isAcquired()).isFalse();
            assertThat(refused.record()).satisfies(holder -> {
                assertThat(holder.handle()).isEqualTo(first);
                assertThat(holder.nodeId()).isEqualTo("node-a");
                assertThat(holder.threadName()).isEqualTo("thread-a");
            });
            // each reading counts itself too
            assertThat(afterTaking - before - 1).as("statements to take a free key").isEqualTo(1);
            assertThat(afterRefusal - afterTaking - 1).as("statements to be refused, holder named").isEqualTo(1);
            store.release(first);
        }
    }

    /**
     * Readers of a key whose row is marked for them join in one statement (the row locked for sharing while the
     * holder is inserted) and leave in one, also the last one out, whose mark the next reader joins in one statement.
     */
    @Test
    void readersJoinAndLeaveAMarkedKeyInOneStatementEach() throws Throwable {
        try (HikariDataSource one = onePool()) {
            JdbcLockStore store = JdbcLockStore.builder(one).tableName("lockmanager_store").build();
            store.initialize();
            LockKey key = LockKey.xdc("store-test", "readers-" + UUID.randomUUID());
            LockHandle first = new LockHandle(key, "first");
            LockHandle second = new LockHandle(key, "second");
            LockHandle third = new LockHandle(key, "third");
            assertThat(store.acquire(LockRequest.of(first, "node-a", "a", LockMode.SHARED), Duration.ofSeconds(30))
                    .isAcquired()).isTrue();
            assertThat(statementsFor(one, () -> assertThat(store.acquire(LockRequest.of(second, "node-b", "b",
                    LockMode.SHARED), Duration.ofSeconds(30)).isAcquired()).isTrue())).as("a reader joining").isEqualTo(1);
            assertThat(statementsFor(one, () -> assertThat(store.release(first)).isTrue()))
                    .as("a reader leaving beside another").isEqualTo(1);
            assertThat(store.read(key)).map(LockRecord::handle).contains(second);
            assertThat(statementsFor(one, () -> assertThat(store.release(second)).isTrue()))
                    .as("the last reader leaving").isEqualTo(1);
            assertThat(store.read(key)).isEmpty();
            assertThat(statementsFor(one, () -> assertThat(store.acquire(LockRequest.of(third, "node-c", "c",
                    LockMode.SHARED), Duration.ofSeconds(30)).isAcquired()).isTrue()))
                    .as("a reader after the last one left").isEqualTo(1);
            assertThat(store.release(third)).isTrue();
            assertThat(store.release(first)).as("released before").isFalse();
        }
    }

    /** The statements the server ran for {@code pool}'s one connection while {@code body} ran. */
    private static long statementsFor(HikariDataSource pool, ThrowingCallable body) throws Throwable {
        long before = statementsOf(pool);
        body.call();
        // each reading counts itself too
        return statementsOf(pool) - before - 1;
    }

    /** A pool of one connection, so that the server's count of its statements is the store's. */
    private static HikariDataSource onePool() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(Database.MARIADB.url());
        config.setUsername(Database.MARIADB.user());
        config.setMaximumPoolSize(1);
        return new HikariDataSource(config);
    }

    /** The statements the server ran for the one connection of {@code pool}, by its own count. */
    private static long statementsOf(HikariDataSource pool) throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW SESSION STATUS LIKE 'Questions'")) {
            rs.next();
            return rs.getLong(2);
        }
    }

    @Test
    void leasesFollowTheDatabaseClockWhateverTheSessionTimeZone() throws Exception {
        assumeTrue(newYorkTimeZoneLoaded(), "the server's time zone tables lack America/New_York and "
                + "mariadb-tzinfo-to-sql could not load it");
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(Database.MARIADB.url());
        config.setUsername(Database.MARIADB.user());
        config.setMaximumPoolSize(2);
        config.setConnectionInitSql("SET time_zone = 'America/New_York', timestamp = "
                + IN_THE_REPEATED_HOUR.getEpochSecond());
        try (HikariDataSource newYork = new HikariDataSource(config)) {
            JdbcLockStore store = JdbcLockStore.builder(newYork).tableName("lockmanager_store").build();
            LockKey key = LockKey.xdc("store-test", "dst-" + UUID.randomUUID());
            LockRecord taken = store.acquire(LockRequest.of(new LockHandle(key, "dst"), "node", "thread", LockMode.EXCLUSIVE),
                    Duration.ofSeconds(30)).record();
            assertThat(taken.lockTime()).as("the lock time in the repeated hour").isEqualTo(IN_THE_REPEATED_HOUR);
            assertThat(taken.expirationTime()).isEqualTo(IN_THE_REPEATED_HOUR.plusSeconds(30));
            store.release(taken.handle());
        }
    }

    private static boolean newYorkTimeZoneLoaded() throws Exception {
        if (convertsNewYork()) {
            return true;
        }
        // the server's zone tables are empty on a fresh install: load the one zone this test needs
        Process load = new ProcessBuilder("sh", "-c", "mariadb-tzinfo-to-sql /usr/share/zoneinfo/America/New_York "
                + "America/New_York | mariadb -h127.0.0.1 -uroot mysql").redirectErrorStream(true).start();
        String output = new String(load.getInputStream().readAllBytes());
        if (!load.waitFor(60, TimeUnit.SECONDS) || load.exitValue() != 0) {
            System.out.println("could not load America/New_York into MariaDB: " + output);
            return false;
        }
        return convertsNewYork();
    }

    private static boolean convertsNewYork() throws SQLException {
        try (Connection c = Database.MARIADB.shared().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT CONVERT_TZ('2026-11-01 06:30:00', '+00:00', 'America/New_York')")) {
            return rs.next() && rs.getString(1) != null;
        }
    }

    private static void execute(String sql) throws SQLException, IOException {
        try (Connection c = Database.MARIADB.shared().getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
