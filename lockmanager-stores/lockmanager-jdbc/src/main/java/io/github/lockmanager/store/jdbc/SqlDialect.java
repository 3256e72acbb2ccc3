package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.store.support.FencingEpoch;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;

/**
 * What differs between databases: the clock expression, the table's DDL (shipped as a file per database, which
 * DBAs may run themselves), the one atomic acquire statement and the check of an existing table's key column.
 * Every time is epoch milliseconds from the database's own clock ({@link #now()}), so leases never depend on an
 * application server's clock or time zone, nor on the session's time zone.
 *
 * <p>The acquire statement takes, in order: key, owner token, node, thread, lease (ms). It inserts the row when
 * absent, or takes over a row that is free or whose lease has ended; a live row of another owner is left as it
 * is. The fencing token it writes follows the kit's {@link FencingEpoch} rule, so a row deleted after idling
 * ({@link #purge}) comes back above every token it ever had.
 */
abstract class SqlDialect {
    /** The fencing epoch's factor ({@link FencingEpoch}), as SQL. */
    static final String TOKENS = Long.toString(FencingEpoch.TOKENS_PER_MILLISECOND);

    /** A record's columns, in the order {@code JdbcLockStore} reads them by position. */
    static final String COLUMNS = "lock_key, owner_token, node_id, thread_name, status, lock_time, expires_at, "
            + "fencing_token";
    /** The table name in the shipped DDL files. */
    static final String DEFAULT_TABLE = "lockmanager_locks";
    /** The key column's length in the shipped DDL: the longest storage key. */
    static final int KEY_COLUMN_LENGTH = 400;

    abstract String name();

    /**
     * What this database can do beyond the statements every dialect has; the statements of a capability it lacks
     * throw {@link UnsupportedOperationException}.
     *
     * @param arrayBatches      renew and check a batch with array parameters ({@link #renewByArrays})
     * @param announcesReleases releases wake waiters of other nodes ({@link #releaseAnnouncing}, {@link #markWaited})
     * @param sharedRowLocks    an {@code INSERT … SELECT} can lock the rows it reads against writers only and return
     *                          what it inserted ({@link #shareRows})
     */
    record Capabilities(boolean arrayBatches, boolean announcesReleases, boolean sharedRowLocks) {
        static final Capabilities NONE = new Capabilities(false, false, false);
    }

    Capabilities capabilities() {
        return Capabilities.NONE;
    }

    final UnsupportedOperationException unsupported(String what) {
        return new UnsupportedOperationException(name() + " has no " + what + " (see capabilities())");
    }

    /** The database's current time in epoch milliseconds, as an SQL expression. */
    abstract String now();

    /** The DDL file of this database, a resource beside this class. */
    abstract String ddlFile();

    abstract String acquire(String table);

    /**
     * Takes over the key's row only while its owner is the predecessor that this node hands the key over from, live or
     * not, and changes nothing otherwise: a row that is free, or another's, or gone means the predecessor lost the key,
     * which its node must learn (no insert, no take-over of a free row). Parameters: the new owner token, node id,
     * thread name and lease (ms), then the key and the predecessor's owner token. Answers as {@link #handOffAnswer}
     * says. A mark of waiters ({@link #markWaited}) stays on the row: they still wait for the key's release, which
     * comes later. The statement's clock is read once, as every database here does within one statement.
     */
    String handOff(String table) {
        String now = now();
        return "UPDATE " + table + " SET fencing_token = GREATEST(fencing_token + 1, " + now + " * " + TOKENS + "), "
                + "owner_token = ?, node_id = ?, thread_name = ?, status = 'RUNNING', lock_time = " + now
                + ", expires_at = " + now + " + ?, last_modified = " + now + " WHERE lock_key = ? AND owner_token = ?";
    }

    /** What {@link #handOff} answers with: {@link AcquireAnswer#GRANT} or {@link AcquireAnswer#NOTHING}. */
    AcquireAnswer handOffAnswer() {
        return AcquireAnswer.NOTHING;
    }

    /**
     * Why the key column of an existing {@code table} could merge distinct keys or refuse long ones, or
     * {@code null} if it is fit.
     */
    abstract String keyColumnProblem(Connection c, String table) throws SQLException;

    /** What {@link #acquire} answers with, beside its update count. */
    enum AcquireAnswer {
        /** Nothing: a read of the row follows. */
        NOTHING,
        /** The row as the statement left it, as {@link #COLUMNS}; a row of another owner is the live holder's. */
        ROW,
        /**
         * The lock time and fencing token of the grant, only when the statement took the key: the rest of the record
         * is the request's, so sending it back would cost the database and the driver for nothing.
         */
        GRANT
    }

    AcquireAnswer acquireAnswer() {
        return AcquireAnswer.NOTHING;
    }

    /**
     * A renew statement taking the lease (ms), then an array of keys and an array of owner tokens, that extends
     * and returns the renewed rows ({@code owner_token, status}) in one round trip;
     * where the database has no array parameters, padded IN-lists are used.
     */
    String renewByArrays(String table) {
        throw unsupported("array batches");
    }

    /** As {@link #renewByArrays}, without the lease and without writing: the live rows' owner and status. */
    String statesByArrays(String table) {
        throw unsupported("array batches");
    }

    /**
     * A release that also announces itself (parameters: key, owner token; {@code alsoWhere} ends its condition): it
     * frees the key's row if it is the owner's and live, returns one row then, and notifies the table's channel with
     * the key if a waiter had marked the row ({@link #markWaited});. The mark stays on the free row: {@link #acquireClearingWaiters} takes it off.
     */
    String releaseAnnouncing(String table, String alsoWhere) {
        throw unsupported("announced releases");
    }

    /**
     * A condition, always true, that makes the statement whose {@code WHERE} clause it ends commit without waiting for
     * the database to flush the commit to disk; empty where a statement cannot ask for that (see
     * {@link JdbcLockStore.Builder#durableReleases}).
     */
    String commitWithoutFlush() {
        return "";
    }

    /**
     * {@link #acquire}, also taking off the mark of the waiters of the row's previous holder, where releases are
     * announced.
     */
    String acquireClearingWaiters(String table) {
        throw unsupported("announced releases");
    }

    /**
     * The locking clause that makes an {@code INSERT … SELECT} lock the rows it reads against writers but not
     * against each other, where the insert can also return what it inserted.
     */
    String shareRows() {
        throw unsupported("shared row locks");
    }

    /** Marks the row of a key held exclusively and live as waited for (parameter: key); one row if it did. */
    String markWaited(String table) {
        throw unsupported("announced releases");
    }

    /** Whether an existing {@code table} has the column {@link #markWaited} writes. */
    boolean hasWaitersColumn(Connection c, String table) throws SQLException {
        return false;
    }

    /** Adds that column to an existing table that lacks it. */
    String addWaitersColumn(String table) {
        throw unsupported("announced releases");
    }

    /** The DDL of {@code table} and its holders table, from the shipped file: one statement each. */
    final List<String> createTables(String table) {
        String resource = ddlFile();
        try (InputStream in = SqlDialect.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("DDL file " + resource + " is missing from the lockmanager jar");
            }
            String ddl = new String(in.readAllBytes(), StandardCharsets.UTF_8).replaceAll("(?m)^--.*$", "")
                    .replaceAll("\\b" + DEFAULT_TABLE + "(_holders)?\\b", Matcher.quoteReplacement(table) + "$1");
            List<String> statements = new ArrayList<>();
            for (String statement : ddl.split(";")) {
                if (!statement.isBlank()) {
                    statements.add(statement.trim());
                }
            }
            return statements;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read DDL file " + resource, e);
        }
    }

    /** The DDL of a {@link FencingTable}: a resource name, compared byte for byte, and the highest token seen. */
    String createFenceTable(String table) {
        return "CREATE TABLE IF NOT EXISTS " + table + " (resource VARCHAR(" + FencingTable.MAX_RESOURCE_LENGTH
                + ") NOT NULL PRIMARY KEY, token BIGINT NOT NULL)";
    }

    /**
     * Records a token for a resource unless a higher one is there, locking the resource's row for the rest of the
     * transaction (parameters: resource, token); returns the row's token as it left it where
     * {@link #fenceReturnsToken()}, else a {@link #readFence} follows in the same transaction.
     */
    abstract String admitFence(String table);

    boolean fenceReturnsToken() {
        return false;
    }

    /** The highest token of a resource (parameter: resource). */
    final String readFence(String table) {
        return "SELECT token FROM " + table + " WHERE resource = ?";
    }

    /**
     * Deletes rows that no acquisition can use any more: free or expired, and untouched for the number of
     * milliseconds bound to its one parameter.
     */
    final String purge(String table) {
        return "DELETE FROM " + table + " WHERE last_modified < " + now() + " - ? AND (owner_token IS NULL OR "
                + "expires_at <= " + now() + ")";
    }

    /** The schema of a {@code [schema.]name} table name, or {@code null}. */
    static String schemaOf(String table) {
        int dot = table.indexOf('.');
        return dot < 0 ? null : table.substring(0, dot);
    }

    static String unqualified(String table) {
        return table.substring(table.indexOf('.') + 1);
    }

    static String tooShort(int length) {
        return length < KEY_COLUMN_LENGTH ? "lock_key holds " + length + " characters; keys with their level, farm "
                + "and client prefix need " + KEY_COLUMN_LENGTH + ", and a longer key would fail" : null;
    }

}
