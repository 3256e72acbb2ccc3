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
 * A local database of the JDBC store: PostgreSQL ({@code -Dbench.postgres.url}, default
 * {@code jdbc:postgresql://127.0.0.1:5432/test}) or MariaDB ({@code -Dbench.mariadb.url}, default
 * {@code jdbc:mariadb://127.0.0.1:3306/test}), each with its driver's default settings. The raw baseline is the minimal pair of
 * conditional statements on a two-column table, one pooled connection per statement as the store takes it.
 */
final class JdbcSubject implements Subject {
    static final String TABLE = "bench_locks";
    private final String name;
    private final String take;
    private final String takeDescription;
    private final HikariDataSource pool;
    private final JdbcLockStore store;
    /** PostgreSQL's store with durable releases, on the same table; {@code null} elsewhere. */
    private final JdbcLockStore durableReleases;

    /** @param unflushedReleases whether the store's releases can skip the flush, so that figure 2 times both */
    private JdbcSubject(String name, String url, String user, String take, String takeDescription,
                        boolean unflushedReleases) throws SQLException, LockManagerException {
        this.name = name;
        this.take = take;
        this.takeDescription = takeDescription;
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setMaximumPoolSize(10);
        pool = new HikariDataSource(config);
        // fresh tables each run: the dead rows an earlier run left (figure 8 deletes 100,000) would slow ours only
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + TABLE);
            s.execute("DROP TABLE IF EXISTS bench_raw");
            s.execute("CREATE TABLE bench_raw (k VARCHAR(400) PRIMARY KEY, owner VARCHAR(64))");
            s.execute("DROP TABLE IF EXISTS bench_raw_holders");
            s.execute("CREATE TABLE bench_raw_holders (k VARCHAR(400), owner VARCHAR(64), PRIMARY KEY (k, owner))");
        }
        store = JdbcLockStore.builder(pool).tableName(TABLE).build();
        store.initialize();
        if (unflushedReleases) {
            durableReleases = JdbcLockStore.builder(pool).tableName(TABLE).durableReleases(true).build();
            durableReleases.initialize();
        } else {
            durableReleases = null;
        }
    }

    static JdbcSubject postgres() throws SQLException, LockManagerException {
        return new JdbcSubject("PostgreSQL", System.getProperty("bench.postgres.url", "jdbc:postgresql://127.0.0.1:5432/test"),
                System.getProperty("bench.postgres.user", "postgres"),
                "INSERT INTO bench_raw (k, owner) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET owner = EXCLUDED.owner "
                        + "WHERE bench_raw.owner IS NULL", "INSERT … ON CONFLICT DO UPDATE … WHERE free", true);
    }

    static JdbcSubject mariadb() throws SQLException, LockManagerException {
        // the driver's defaults, as users get them: client-side prepared statements, parsed by the server each time
        return new JdbcSubject("MariaDB", System.getProperty("bench.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test"),
                System.getProperty("bench.mariadb.user", "root"),
                "INSERT INTO bench_raw (k, owner) VALUES (?, ?) ON DUPLICATE KEY UPDATE owner = IF(owner IS NULL, "
                        + "VALUES(owner), owner)", "INSERT … ON DUPLICATE KEY UPDATE owner = IF(free, …)", false);
    }

    String version() throws SQLException {
        try (Connection c = pool.getConnection()) {
            return c.getMetaData().getDatabaseProductName() + " " + c.getMetaData().getDatabaseProductVersion();
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public LockStore store() {
        return store;
    }

    @Override
    public Variant variant() {
        return durableReleases == null ? null : new Variant("durableReleases(true)", "each release waits for the "
                + "flush, as the raw pair's statements do", durableReleases);
    }

    @Override
    public String rawCycleDescription() {
        return takeDescription + " + UPDATE … WHERE owner";
    }

    @Override
    public void rawCycle(String key, String owner) throws SQLException {
        try (Connection c = pool.getConnection(); PreparedStatement statement = c.prepareStatement(take)) {
            statement.setString(1, key);
            statement.setString(2, owner);
            statement.executeUpdate();
        }
        try (Connection c = pool.getConnection(); PreparedStatement free = c.prepareStatement(
                "UPDATE bench_raw SET owner = NULL WHERE k = ? AND owner = ?")) {
            free.setString(1, key);
            free.setString(2, owner);
            free.executeUpdate();
        }
    }

    @Override
    public String rawSharedCycleDescription() {
        return "INSERT … SELECT … WHERE NOT EXISTS (an exclusive owner) + DELETE … WHERE owner";
    }

    @Override
    public void rawSharedCycle(String key, String owner) throws SQLException {
        try (Connection c = pool.getConnection(); PreparedStatement join = c.prepareStatement("INSERT INTO "
                + "bench_raw_holders (k, owner) SELECT ?, ? FROM (SELECT 1 AS one) o WHERE NOT EXISTS (SELECT 1 FROM "
                + "bench_raw WHERE k = ? AND owner IS NOT NULL)")) {
            join.setString(1, key);
            join.setString(2, owner);
            join.setString(3, key);
            join.executeUpdate();
        }
        try (Connection c = pool.getConnection(); PreparedStatement leave = c.prepareStatement(
                "DELETE FROM bench_raw_holders WHERE k = ? AND owner = ?")) {
            leave.setString(1, key);
            leave.setString(2, owner);
            leave.executeUpdate();
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
        store.close();
        if (durableReleases != null) {
            durableReleases.close();
        }
        pool.close();
    }
}
