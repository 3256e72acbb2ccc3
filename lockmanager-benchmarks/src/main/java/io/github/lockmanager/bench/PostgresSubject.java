package io.github.lockmanager.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.jdbc.JdbcLockStore;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The local PostgreSQL ({@code -Dbench.postgres.url}, default {@code jdbc:postgresql://127.0.0.1:5432/test}). The
 * raw baseline is the minimal pair of conditional statements on a two-column table, one pooled connection per
 * statement as the store takes it.
 */
final class PostgresSubject implements Subject {
    static final String TABLE = "bench_locks";
    private final HikariDataSource pool;
    private final JdbcLockStore store;

    PostgresSubject() throws SQLException, LockManagerException {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(System.getProperty("bench.postgres.url", "jdbc:postgresql://127.0.0.1:5432/test"));
        config.setUsername(System.getProperty("bench.postgres.user", "postgres"));
        config.setMaximumPoolSize(10);
        pool = new HikariDataSource(config);
        // fresh tables each run: the dead rows an earlier run left (figure 8 deletes 100,000) would slow ours only
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + TABLE);
            s.execute("DROP TABLE IF EXISTS bench_raw");
            s.execute("CREATE TABLE bench_raw (k VARCHAR(400) PRIMARY KEY, owner VARCHAR(64))");
        }
        store = JdbcLockStore.builder(pool).tableName(TABLE).build();
        store.initialize();
    }

    String version() throws SQLException {
        try (Connection c = pool.getConnection()) {
            return c.getMetaData().getDatabaseProductName() + " " + c.getMetaData().getDatabaseProductVersion();
        }
    }

    @Override
    public String name() {
        return "PostgreSQL";
    }

    @Override
    public LockStore store() {
        return store;
    }

    @Override
    public String rawCycleDescription() {
        return "INSERT … ON CONFLICT DO UPDATE … WHERE free + UPDATE … WHERE owner";
    }

    @Override
    public void rawCycle(String key, String owner) throws SQLException {
        try (Connection c = pool.getConnection(); PreparedStatement take = c.prepareStatement(
                "INSERT INTO bench_raw (k, owner) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET owner = EXCLUDED.owner "
                        + "WHERE bench_raw.owner IS NULL")) {
            take.setString(1, key);
            take.setString(2, owner);
            take.executeUpdate();
        }
        try (Connection c = pool.getConnection(); PreparedStatement free = c.prepareStatement(
                "UPDATE bench_raw SET owner = NULL WHERE k = ? AND owner = ?")) {
            free.setString(1, key);
            free.setString(2, owner);
            free.executeUpdate();
        }
    }

    @Override
    public long rawScan() throws SQLException {
        long now = System.currentTimeMillis();
        long rows = 0;
        try (Connection c = pool.getConnection(); PreparedStatement scan = c.prepareStatement(
                "SELECT lock_key, owner_token, node_id, thread_name, status, lock_time, expires_at, fencing_token FROM "
                        + TABLE + " WHERE owner_token IS NOT NULL AND expires_at > ?")) {
            scan.setLong(1, now);
            try (ResultSet rs = scan.executeQuery()) {
                while (rs.next()) {
                    rs.getString(1);
                    rows++;
                }
            }
        }
        return rows;
    }

    @Override
    public int listSize(Settings settings) {
        return settings.listSize();
    }

    DataSource pool() {
        return pool;
    }

    @Override
    public void close() {
        pool.close();
    }
}
