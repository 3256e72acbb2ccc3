package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/** The SQL of one dialect for one lock table, built once per store. */
final class JdbcStatements {
    /**
     * The statements of the database behind {@code dataSource}, told by its driver's metadata.
     *
     * @throws LockManagerException if the database cannot be reached, or is not one the store supports
     */
    static JdbcStatements forDatabase(DataSource dataSource, String table, boolean durableReleases)
            throws LockManagerException {
        String product;
        String version;
        int major;
        int minor;
        try (Connection c = dataSource.getConnection()) {
            product = c.getMetaData().getDatabaseProductName();
            version = c.getMetaData().getDatabaseProductVersion();
            major = c.getMetaData().getDatabaseMajorVersion();
            minor = c.getMetaData().getDatabaseMinorVersion();
        } catch (SQLException e) {
            throw new LockManagerException(ErrorCode.CONNECTION_ERROR, "could not reach the database of lock table "
                    + table + ": " + SqlFailures.INSTANCE.describe(e), e);
        }
        SqlDialect dialect = SqlDialects.of(product, major, minor);
        if (dialect == null) {
            throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "the JDBC lock store does not support "
                    + product + " " + version + "; supported are PostgreSQL, MariaDB, MySQL 8 and H2");
        }
        return new JdbcStatements(dialect, table, durableReleases);
    }

    final SqlDialect dialect;
    final String acquire;

    /** PostgreSQL's acquire where releases are announced; {@code null} elsewhere. */
    final String acquireClearingWaiters;

    /** {@link SqlDialect#handOff}. */
    final String handOff;
    final String readAny;
    final String readLive;

    /** A key's row while it is held, exclusively or by the holders its mark stands for. */
    final String readHeld;

    /** A key's row if it has an exclusive owner, whose lease may have ended. */
    final String readOwned;
    final String listLive;
    final String release;

    /** {@link #release} in a transaction of its own, committed without waiting for the flush unless durable. */
    final String releaseAlone;

    /** PostgreSQL's release that wakes marked waiters, and the mark; {@code null} elsewhere. */
    final String releaseAnnouncing;
    final String markWaited;

    /** Locks a lock's row for a {@link GuardedTransaction} if it is the acquisition's and its lease runs. */
    final String confirm;
    final String abort;
    final String purge;

    /** PostgreSQL's batch statements with array parameters; {@code null} elsewhere. */
    final String renewByArrays;
    final String statesByArrays;
    final SharedHolders shared;
    final HolderReads holderReads;
    private final String table;
    private final Map<String, String> byBatchSize = Collections.synchronizedMap(new HashMap<>());

    JdbcStatements(SqlDialect dialect, String table, boolean durableReleases) {
        this.dialect = dialect;
        this.table = table;
        String now = dialect.now();
        // a row whose holders are in the holders table is shown through them
        String live = " AND owner_token IS NOT NULL AND owner_token NOT IN " + SharedHolders.MARKS
                + " AND expires_at > " + now;
        this.acquire = dialect.acquire(table);
        SqlDialect.Capabilities can = dialect.capabilities();
        this.acquireClearingWaiters = can.announcesReleases() ? dialect.acquireClearingWaiters(table) : null;
        this.handOff = dialect.handOff(table);
        this.readAny = "SELECT " + SqlDialect.COLUMNS + " FROM " + table + " WHERE lock_key = ?";
        this.readLive = readAny + live;
        this.readHeld = readAny + " AND owner_token IS NOT NULL AND expires_at > " + now;
        this.readOwned = readAny + " AND owner_token IS NOT NULL AND owner_token NOT IN " + SharedHolders.MARKS;
        this.listLive = "SELECT " + SqlDialect.COLUMNS + " FROM " + table + " WHERE 1 = 1" + live;
        this.release = "UPDATE " + table + " SET owner_token = NULL, status = 'FREE', expires_at = " + now
                + ", last_modified = " + now + " WHERE lock_key = ? AND owner_token = ? AND expires_at > " + now;
        // never in a guarded transaction's release, whose commit is the caller's work
        String unflushed = durableReleases ? "" : dialect.commitWithoutFlush();
        this.releaseAlone = release + unflushed;
        this.releaseAnnouncing = can.announcesReleases() ? dialect.releaseAnnouncing(table, unflushed) : null;
        this.markWaited = can.announcesReleases() ? dialect.markWaited(table) : null;
        this.confirm = "SELECT fencing_token FROM " + table + " WHERE lock_key = ? AND owner_token = ? AND "
                + "expires_at > " + now + " FOR UPDATE";
        this.abort = "UPDATE " + table + " SET status = 'ABORT', last_modified = " + now + " WHERE lock_key = ?" + live;
        this.purge = dialect.purge(table);
        this.renewByArrays = can.arrayBatches() ? dialect.renewByArrays(table) : null;
        this.statesByArrays = can.arrayBatches() ? dialect.statesByArrays(table) : null;
        this.holderReads = new HolderReads(dialect, table, unflushed);
        this.shared = new SharedHolders(dialect, table, holderReads);
    }

    /*
     * The IN-list statements for n locks, padded to a power of two so that only a handful of distinct
     * statements ever exist (drivers cache prepared statements by their text).
     */
    String renew(int n) {
        return byBatchSize.computeIfAbsent("r" + n, k -> "UPDATE " + table + " SET expires_at = " + dialect.now()
                + " + ?, last_modified = " + dialect.now() + " WHERE lock_key IN (" + JdbcRows.marks(n)
                + ") AND owner_token IN (" + JdbcRows.marks(n) + ") AND expires_at > " + dialect.now());
    }

    String states(int n) {
        return byBatchSize.computeIfAbsent("s" + n, k -> "SELECT owner_token, status FROM " + table
                + " WHERE lock_key IN (" + JdbcRows.marks(n) + ") AND owner_token IN (" + JdbcRows.marks(n) + ") AND expires_at > "
                + dialect.now());
    }
}
