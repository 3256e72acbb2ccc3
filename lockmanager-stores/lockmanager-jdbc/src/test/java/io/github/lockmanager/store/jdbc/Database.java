package io.github.lockmanager.store.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.lockmanager.LockManagerException;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The databases the JDBC tests run on: the local PostgreSQL and MariaDB (as {@code .ci/run} starts them) and H2
 * in this process. URLs can be changed with {@code -Dlockmanager.postgres.url}, {@code -Dlockmanager.mariadb.url}.
 */
enum Database {
    POSTGRES("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "lockmanager.postgres.url", "postgresql.sql",
            "SELECT pg_backend_pid()", "SELECT pg_terminate_backend(%d)",
            "SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"),
    MARIADB("jdbc:mariadb://127.0.0.1:3306/test", "root", "lockmanager.mariadb.url", "mariadb.sql",
            "SELECT CONNECTION_ID()", "KILL CONNECTION %d",
            "SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6)) DIV 1000"),
    H2("jdbc:h2:mem:lockmanager;DB_CLOSE_DELAY=-1", "sa", "lockmanager.h2.url", "h2.sql", null, null,
            "SELECT CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP(3)) * 1000 AS BIGINT)");

    private static final Map<Database, HikariDataSource> SHARED = new ConcurrentHashMap<>();
    private static final Map<Database, JdbcLockStore> TCK_STORES = new ConcurrentHashMap<>();
    private static final Map<Database, JdbcLockStore> MANUAL_COMMIT_TCK_STORES = new ConcurrentHashMap<>();

    private final String url;
    private final String user;
    private final String property;
    private final String ddlFile;
    private final String backendIdQuery;
    private final String killStatement;
    private final String clockQuery;

    Database(String url, String user, String property, String ddlFile, String backendIdQuery, String killStatement,
             String clockQuery) {
        this.clockQuery = clockQuery;
        this.url = url;
        this.user = user;
        this.property = property;
        this.ddlFile = ddlFile;
        this.backendIdQuery = backendIdQuery;
        this.killStatement = killStatement;
    }

    /** The DDL file the JDBC store ships for this database, from its jar. */
    String shippedDdl() throws java.io.IOException {
        try (java.io.InputStream in = Database.class.getResourceAsStream("/io/github/lockmanager/store/jdbc/" + ddlFile)) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    /** Whether the server can drop a session the way a restart or an administrator does (not H2 in memory). */
    boolean canDropSessions() {
        return killStatement != null;
    }

    /** The server's id of the session behind {@code c}. */
    long sessionId(java.sql.Connection c) throws java.sql.SQLException {
        try (java.sql.Statement s = c.createStatement(); java.sql.ResultSet rs = s.executeQuery(backendIdQuery)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Drops session {@code id} from another connection, as {@code pg_terminate_backend} or {@code KILL} do. */
    void dropSession(long id) throws java.sql.SQLException {
        try (java.sql.Connection c = shared().getConnection(); java.sql.Statement s = c.createStatement()) {
            s.execute(String.format(killStatement, id));
        }
    }

    /** A query of the database's clock in epoch milliseconds, independent of the store's own SQL. */
    String clockQuery() {
        return clockQuery;
    }

    String user() {
        return user;
    }

    /** The JDBC URL, as overridden by its system property. */
    String url() {
        return System.getProperty(property, url);
    }

    /** One pool per database for the whole test JVM. */
    HikariDataSource shared() {
        return SHARED.computeIfAbsent(this, db -> db.pool(10));
    }

    /** The initialized store the TCK runs on, one per database. */
    JdbcLockStore tckStore() {
        return TCK_STORES.computeIfAbsent(this, db -> db.initializedStore(db.shared(), "lockmanager_tck"));
    }

    /**
     * The initialized store of a second TCK run, one per database, on a pool whose connections come with auto-commit
     * off, as many applications configure theirs: the store must commit every write all the same.
     */
    JdbcLockStore manualCommitTckStore() {
        return MANUAL_COMMIT_TCK_STORES.computeIfAbsent(this,
                db -> db.initializedStore(db.manualCommitPool(10), "lockmanager_tck_manual_commit"));
    }

    private JdbcLockStore initializedStore(HikariDataSource pool, String table) {
        JdbcLockStore store = JdbcLockStore.builder(pool).tableName(table).build();
        try {
            store.initialize();
        } catch (LockManagerException e) {
            throw new IllegalStateException("cannot create the TCK table " + table + " on " + this, e);
        }
        return store;
    }

    /** A new pool of at most {@code size} connections; the caller closes it. */
    HikariDataSource pool(int size) {
        return new HikariDataSource(poolConfig(size));
    }

    /** A new pool of at most {@code size} connections that come with auto-commit off; the caller closes it. */
    HikariDataSource manualCommitPool(int size) {
        HikariConfig config = poolConfig(size);
        config.setAutoCommit(false);
        config.setPoolName(config.getPoolName() + "-manual-commit");
        return new HikariDataSource(config);
    }

    private HikariConfig poolConfig(int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url());
        config.setUsername(user);
        config.setPassword("");
        config.setMaximumPoolSize(size);
        config.setConnectionTimeout(2_000);
        config.setPoolName("test-" + name().toLowerCase() + "-" + size);
        return config;
    }
}
