package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.internal.Require;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * Lets a resource kept in a relational database refuse writes from a holder whose lock has passed to someone else:
 * the table remembers, per resource, the highest fencing token a write was admitted with, and
 * {@link #admit} refuses a lower one (Kleppmann's condition). A lease alone cannot do this: a holder paused past its
 * lease (a long GC pause, a stopped process) wakes up still believing it holds the lock, and its next write would
 * land after the new holder's.
 *
 * <pre>{@code
 * try (LockResource lock = locks.lock("invoice-42"); Connection c = dataSource.getConnection()) {
 *     c.setAutoCommit(false);
 *     fences.admit(c, "invoice-42", lock.getFencingToken()); // throws StaleFencingTokenException if overtaken
 *     ... the guarded writes, on c ...
 *     c.commit();
 * }
 * }</pre>
 *
 * {@link #admit} records the token and keeps the resource's row locked until the caller's transaction ends, so a
 * newer holder's admit waits for that transaction: the older holder's writes either commit before the newer
 * holder's admit, or are refused. Only writes in the same transaction as the admit are guarded. The table
 * ({@code resource}, up to {@value #MAX_RESOURCE_LENGTH} characters compared exactly, and {@code token}) may live in
 * the lock store's database or in any other PostgreSQL, MariaDB/MySQL or H2 database; tokens of different lock
 * stores must not guard the same resource. Thread-safe; each call uses only the connection it is given.
 */
public final class FencingTable {
    public static final int MAX_RESOURCE_LENGTH = 255;
    private static final int INSERT_RACE_ATTEMPTS = 200;
    private static final long INSERT_RACE_PAUSE_MILLIS = 25;
    private static final Pattern TABLE_NAME = Pattern.compile("([A-Za-z_][A-Za-z0-9_]{0,62}\\.)?[A-Za-z_][A-Za-z0-9_]{0,62}");

    private final DataSource dataSource;
    private final String table;
    private volatile SqlDialect dialect;

    /**
     * @param table {@code [schema.]name}, letters, digits and {@code _}, not starting with a digit
     * @throws IllegalArgumentException naming what is wrong with either argument
     */
    public FencingTable(DataSource dataSource, String table) {
        this.dataSource = Require.notNull(dataSource, "dataSource");
        if (table == null || !TABLE_NAME.matcher(table).matches()) {
            throw new IllegalArgumentException("fencing table name must be [schema.]name of letters, digits and '_' "
                    + "(not starting with a digit, at most 63 each), was '" + table + "'");
        }
        this.table = table;
    }

    /**
     * Creates the table if absent; idempotent.
     *
     * @throws SQLFeatureNotSupportedException if the database is not PostgreSQL, MariaDB/MySQL or H2
     */
    public void initialize() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement create = c.createStatement()) {
            create.execute(dialect(c).createFenceTable(table));
            // PostgreSQL's DDL is transactional: on a connection with auto-commit off it is rolled back otherwise
            if (!c.getAutoCommit()) {
                c.commit();
            }
        }
    }

    /**
     * Admits a write to {@code resource} with {@code token}, inside the caller's transaction on {@code c}: records the
     * token unless a higher one was admitted before, and keeps the resource's row locked until that transaction
     * ends. Call it before the guarded writes, on the same connection, with auto-commit off; a holder may admit
     * several times with its token. On refusal the transaction holds the row's lock and must be rolled back.
     *
     * @throws StaleFencingTokenException if a higher token was admitted for the resource: the lock has passed on
     * @throws IllegalStateException      if {@code c} is in auto-commit mode, where the guard would end with the
     *                                    statement
     * @throws IllegalArgumentException   for a resource that is empty or longer than {@value #MAX_RESOURCE_LENGTH}
     *                                    characters, or a token below 1
     */
    public void admit(Connection c, String resource, long token) throws SQLException {
        Require.notNull(c, "connection");
        checkResource(resource);
        Require.argument(token > 0, "fencing token must be at least 1, was %d", token);
        if (c.getAutoCommit()) {
            throw new IllegalStateException("admit(" + resource + ", " + token + ") needs the transaction of the "
                    + "writes it guards: turn auto-commit off on the connection first");
        }
        long highest = record(c, dialect(c), resource, token);
        if (highest > token) {
            throw new StaleFencingTokenException(resource, token, highest);
        }
    }

    /** Runs the admit statement; the resource's highest token after it. */
    private long record(Connection c, SqlDialect sql, String resource, long token) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try (PreparedStatement admit = c.prepareStatement(sql.admitFence(table))) {
                admit.setString(1, resource);
                admit.setLong(2, token);
                if (sql.fenceReturnsToken()) {
                    try (ResultSet rs = admit.executeQuery()) {
                        rs.next();
                        return rs.getLong(1);
                    }
                }
                admit.executeUpdate();
                return read(c, sql, resource).orElseThrow();
            } catch (SQLException e) {
                // H2's MERGE does not wait for another transaction inserting the same new resource: it fails, and
                // matches the row once that transaction has committed (the other databases' upserts wait)
                if (!SqlFailures.isUniqueViolation(e) || attempt == INSERT_RACE_ATTEMPTS) {
                    throw e;
                }
                pauseAfterInsertRace(resource, e);
            }
        }
    }

    private static void pauseAfterInsertRace(String resource, SQLException race) throws SQLException {
        try {
            Thread.sleep(INSERT_RACE_PAUSE_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            SQLException interrupted = new SQLException("interrupted while admitting a write to '" + resource
                    + "' (waiting for another transaction's first write of it)", e);
            interrupted.addSuppressed(race);
            throw interrupted;
        }
    }

    /** The highest token admitted for {@code resource}, if any: for operators and tests. */
    public OptionalLong highestAdmitted(String resource) throws SQLException {
        checkResource(resource);
        try (Connection c = dataSource.getConnection()) {
            return read(c, dialect(c), resource);
        }
    }

    private OptionalLong read(Connection c, SqlDialect sql, String resource) throws SQLException {
        try (PreparedStatement read = c.prepareStatement(sql.readFence(table))) {
            read.setString(1, resource);
            try (ResultSet rs = read.executeQuery()) {
                return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
            }
        }
    }

    private SqlDialect dialect(Connection c) throws SQLException {
        SqlDialect known = dialect;
        if (known == null) {
            DatabaseMetaData meta = c.getMetaData();
            known = SqlDialects.of(meta.getDatabaseProductName(), meta.getDatabaseMajorVersion(),
                    meta.getDatabaseMinorVersion());
            if (known == null) {
                throw new SQLFeatureNotSupportedException("fencing tables are not supported on "
                        + meta.getDatabaseProductName() + " " + meta.getDatabaseProductVersion()
                        + "; supported are PostgreSQL, MariaDB, MySQL 8 and H2");
            }
            dialect = known;
        }
        return known;
    }

    private static void checkResource(String resource) {
        Require.notEmpty(resource, "resource");
        Require.argument(resource.length() <= MAX_RESOURCE_LENGTH, "resource must be at most %d characters, was %d",
                MAX_RESOURCE_LENGTH, resource.length());
    }

    @Override
    public String toString() {
        return "FencingTable[" + table + "]";
    }
}
