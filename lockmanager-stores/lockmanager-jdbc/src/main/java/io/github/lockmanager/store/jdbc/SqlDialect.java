package io.github.lockmanager.store.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;

/**
 * What differs between databases: the clock expression, the table's DDL (shipped as a file per database, which
 * DBAs may run themselves), the one atomic acquire statement and the check of an existing table's key column.
 * Every time is epoch milliseconds from the database's own clock ({@link #now()}), so leases never depend on an
 * application server's clock or time zone, nor on the session's time zone.
 *
 * <p>The acquire statement takes, in order: key, owner token, node, thread, lease (ms). It inserts the row when
 * absent, or takes over a row that is free or whose lease has ended; a live row of another owner is left as it
 * is. The fencing token it writes is {@code max(previous + 1, 1000 * now)}: it grows with every acquisition, and
 * a row deleted after idling ({@link #purge}) comes back above every token it ever had, since fewer than 1000
 * acquisitions of one key fit in a millisecond (see {@link JdbcLockStore.Builder#idleRecordRetention}).
 */
abstract class SqlDialect {
    /** A record's columns, in the order {@code JdbcLockStore} reads them by position. */
    static final String COLUMNS = "lock_key, owner_token, node_id, thread_name, status, lock_time, expires_at, "
            + "fencing_token";
    /** The table name in the shipped DDL files. */
    static final String DEFAULT_TABLE = "lockmanager_locks";
    /** The key column's length in the shipped DDL: the longest storage key. */
    static final int KEY_COLUMN_LENGTH = 400;

    abstract String name();

    /** The database's current time in epoch milliseconds, as an SQL expression. */
    abstract String now();

    /** The DDL file of this database, a resource beside this class. */
    abstract String ddlFile();

    abstract String acquire(String table);

    /**
     * {@link #acquire}, also taking over a row whose owner is a predecessor that this node hands the key over from
     * (every parameter after the five of {@link #acquire} is the predecessor's owner token), live or not. A mark of
     * waiters ({@link #markWaited}) stays on the row: they still wait for the key's release, which comes later.
     */
    abstract String handOff(String table);

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
     * and returns the renewed rows ({@code owner_token, status}) in one round trip; {@code null} where the
     * database has no array parameters (padded IN-lists are used there).
     */
    String renewByArrays(String table) {
        return null;
    }

    /** As {@link #renewByArrays}, without the lease and without writing: the live rows' owner and status. */
    String statesByArrays(String table) {
        return null;
    }

    /**
     * A release that also announces itself (parameters: key, owner token; {@code alsoWhere} ends its condition): it
     * frees the key's row if it is the owner's and live, returns one row then, and notifies the table's channel with
     * the key if a waiter had marked the row ({@link #markWaited}); {@code null} where the database cannot announce
     * releases. The mark stays on the free row: {@link #acquireClearingWaiters} takes it off.
     */
    String releaseAnnouncing(String table, String alsoWhere) {
        return null;
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
     * announced; {@code null} elsewhere.
     */
    String acquireClearingWaiters(String table) {
        return null;
    }

    /**
     * The locking clause that makes an {@code INSERT … SELECT} lock the rows it reads against writers but not
     * against each other, where the insert can also return what it inserted; {@code null} where not both.
     */
    String shareRows() {
        return null;
    }

    /** Marks the row of a key held exclusively and live as waited for (parameter: key); one row if it did. */
    String markWaited(String table) {
        return null;
    }

    /** Whether an existing {@code table} has the column {@link #markWaited} writes. */
    boolean hasWaitersColumn(Connection c, String table) throws SQLException {
        return false;
    }

    /** Adds that column to an existing table that lacks it. */
    String addWaitersColumn(String table) {
        return null;
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

    /**
     * The dialect of a database, by the product name and version its driver reports; {@code null} if not
     * supported.
     */
    static SqlDialect of(String productName, int majorVersion, int minorVersion) {
        String product = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
        if (product.contains("postgresql")) {
            return new Postgres();
        }
        if (product.contains("mariadb")) {
            boolean returning = majorVersion > 10 || (majorVersion == 10 && minorVersion >= 5);
            return new MySql("MariaDB", "mariadb.sql", returning);
        }
        if (product.contains("mysql")) {
            return new MySql("MySQL", "mysql.sql", false);
        }
        if (product.equals("h2")) {
            return new H2();
        }
        return null;
    }

    /** The schema of a {@code [schema.]name} table name, or {@code null}. */
    private static String schemaOf(String table) {
        int dot = table.indexOf('.');
        return dot < 0 ? null : table.substring(0, dot);
    }

    private static String unqualified(String table) {
        return table.substring(table.indexOf('.') + 1);
    }

    private static String tooShort(int length) {
        return length < KEY_COLUMN_LENGTH ? "lock_key holds " + length + " characters; keys with their level, farm "
                + "and client prefix need " + KEY_COLUMN_LENGTH + ", and a longer key would fail" : null;
    }

    private static final class Postgres extends SqlDialect {
        @Override
        String name() {
            return "PostgreSQL";
        }

        @Override
        String admitFence(String table) {
            return "INSERT INTO " + table + " AS f (resource, token) VALUES (?, ?) ON CONFLICT (resource) DO UPDATE "
                    + "SET token = GREATEST(f.token, EXCLUDED.token) RETURNING token";
        }

        @Override
        boolean fenceReturnsToken() {
            return true;
        }

        @Override
        String now() {
            return "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)";
        }

        @Override
        String ddlFile() {
            return "postgresql.sql";
        }

        @Override
        String acquire(String table) {
            return acquire(table, "", "");
        }

        @Override
        String handOff(String table) {
            return acquire(table, "", " OR t.owner_token = ?");
        }

        @Override
        String acquireClearingWaiters(String table) {
            return acquire(table, "waiters = FALSE, ", "");
        }

        private String acquire(String table, String alsoSet, String orTakenOver) {
            return "INSERT INTO " + table + " AS t (" + COLUMNS + ", last_modified) "
                    + "SELECT ?, ?, ?, ?, 'RUNNING', n, n + ?, n * 1000, n FROM (SELECT " + now() + " AS n) c "
                    + "ON CONFLICT (lock_key) DO UPDATE SET " + alsoSet + "owner_token = EXCLUDED.owner_token, "
                    + "node_id = EXCLUDED.node_id, thread_name = EXCLUDED.thread_name, status = 'RUNNING', "
                    + "lock_time = EXCLUDED.lock_time, expires_at = EXCLUDED.expires_at, "
                    + "fencing_token = GREATEST(t.fencing_token + 1, EXCLUDED.fencing_token), "
                    + "last_modified = EXCLUDED.last_modified "
                    + "WHERE t.owner_token IS NULL OR t.expires_at <= EXCLUDED.lock_time" + orTakenOver
                    + " RETURNING lock_time, fencing_token";
        }

        /* RETURNING gives back only a row the statement took, so it is ours. */
        @Override
        AcquireAnswer acquireAnswer() {
            return AcquireAnswer.GRANT;
        }

        @Override
        String shareRows() {
            return "FOR SHARE";
        }

        /*
         * The flag is returned from the row as updated, which carries a mark a waiter committed before or while the
         * update waited for the row; clearing it here would need the row read and locked first (no RETURNING of old
         * values before PostgreSQL 18), a second lock record per release. pg_notify is sent when the statement
         * commits.
         */
        @Override
        String releaseAnnouncing(String table, String alsoWhere) {
            return "WITH u AS (UPDATE " + table + " SET owner_token = NULL, status = 'FREE', expires_at = " + now()
                    + ", last_modified = " + now() + " WHERE lock_key = ? AND owner_token = ? AND expires_at > "
                    + now() + alsoWhere + " RETURNING lock_key, waiters) "
                    + "SELECT CASE WHEN waiters THEN pg_notify(" + PostgresReleaseListener.channelLiteral(table)
                    + ", lock_key) END FROM u";
        }

        /*
         * set_config(..., true) holds for the statement's own transaction only, so the pool's connection keeps the
         * session's setting; the commit reads it when the statement has run.
         */
        @Override
        String commitWithoutFlush() {
            return " AND set_config('synchronous_commit', 'off', true) = 'off'";
        }

        /*
         * A row locked by a guarded transaction (or a release in flight) is skipped rather than waited for: the
         * waiter then polls, instead of blocking in this statement until the work ends.
         */
        @Override
        String markWaited(String table) {
            return "UPDATE " + table + " SET waiters = TRUE WHERE lock_key = (SELECT lock_key FROM " + table
                    + " WHERE lock_key = ? AND owner_token IS NOT NULL AND owner_token NOT IN " + SharedHolders.MARKS
                    + " AND expires_at > " + now() + " FOR UPDATE SKIP LOCKED)";
        }

        @Override
        boolean hasWaitersColumn(Connection c, String table) throws SQLException {
            try (PreparedStatement column = c.prepareStatement("SELECT 1 FROM pg_attribute WHERE attrelid = "
                    + "CAST(? AS regclass) AND attname = 'waiters' AND NOT attisdropped")) {
                column.setString(1, table);
                try (ResultSet rs = column.executeQuery()) {
                    return rs.next();
                }
            }
        }

        @Override
        String addWaitersColumn(String table) {
            return "ALTER TABLE " + table + " ADD COLUMN IF NOT EXISTS waiters BOOLEAN NOT NULL DEFAULT FALSE";
        }

        /*
         * The batch is joined as unnest(keys, owners): whatever plan a cached generic plan picks, it is linear
         * in the table (a hash join at worst), never the table times a list of parameters compared one by one.
         */
        @Override
        String renewByArrays(String table) {
            return "UPDATE " + table + " t SET expires_at = " + now() + " + ?, last_modified = " + now()
                    + " FROM unnest(CAST(? AS VARCHAR[]), CAST(? AS VARCHAR[])) AS b(k, o) "
                    + "WHERE t.lock_key = b.k AND t.owner_token = b.o AND t.expires_at > " + now()
                    + " RETURNING t.owner_token, t.status";
        }

        @Override
        String statesByArrays(String table) {
            return "SELECT t.owner_token, t.status FROM " + table + " t "
                    + "JOIN unnest(CAST(? AS VARCHAR[]), CAST(? AS VARCHAR[])) AS b(k, o) "
                    + "ON t.lock_key = b.k AND t.owner_token = b.o WHERE t.expires_at > " + now();
        }

        @Override
        String keyColumnProblem(Connection c, String table) throws SQLException {
            try (PreparedStatement column = c.prepareStatement("SELECT a.atttypmod - 4, COALESCE(l.collisdeterministic, "
                    + "TRUE), l.collname FROM pg_attribute a LEFT JOIN pg_collation l ON l.oid = a.attcollation "
                    + "WHERE a.attrelid = CAST(? AS regclass) AND a.attname = 'lock_key'")) {
                column.setString(1, table);
                try (ResultSet rs = column.executeQuery()) {
                    if (!rs.next()) {
                        return "it has no lock_key column";
                    }
                    if (!rs.getBoolean(2)) {
                        return "lock_key has the nondeterministic collation " + rs.getString(3)
                                + ", which makes distinct keys equal; use COLLATE \"C\"";
                    }
                    int length = rs.getInt(1);
                    return length < 0 ? null : tooShort(length);
                }
            }
        }
    }

    private static final class MySql extends SqlDialect {
        private final String name;
        private final String ddlFile;
        /** MariaDB 10.5 and later: the upsert returns the row as it left it (ours, or the holder's). */
        private final boolean returning;

        MySql(String name, String ddlFile, boolean returning) {
            this.name = name;
            this.ddlFile = ddlFile;
            this.returning = returning;
        }

        @Override
        AcquireAnswer acquireAnswer() {
            return returning ? AcquireAnswer.ROW : AcquireAnswer.NOTHING;
        }

        @Override
        String shareRows() {
            return returning ? "LOCK IN SHARE MODE" : null;
        }

        @Override
        String createFenceTable(String table) {
            // the server's default collation would take 'Doc' and 'doc' for one resource
            return super.createFenceTable(table).replace("NOT NULL PRIMARY KEY",
                    "CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY");
        }

        @Override
        String admitFence(String table) {
            return "INSERT INTO " + table + " (resource, token) VALUES (?, ?) ON DUPLICATE KEY UPDATE "
                    + "token = GREATEST(token, VALUES(token))";
        }

        @Override
        String name() {
            return name;
        }

        /*
         * UTC_TIMESTAMP does not depend on the session's time zone; UNIX_TIMESTAMP(NOW()) would convert local time
         * back and be an hour off inside the repeated hour of a daylight-saving change.
         */
        @Override
        String now() {
            return "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)";
        }

        @Override
        String ddlFile() {
            return ddlFile;
        }

        @Override
        String acquire(String table) {
            return acquire(table, "");
        }

        /* the predecessor's token is bound once for each of the seven tests of "free" */
        @Override
        String handOff(String table) {
            return acquire(table, " OR owner_token = ?");
        }

        private String acquire(String table, String orTakenOver) {
            // assignments run left to right and see earlier ones: the take-over test reads owner_token and
            // expires_at, so those two are assigned last, expires_at after owner_token shows whether we took it
            // the clock is read once per statement (at its start), so repeating now() repeats one value; a
            // VALUES row instead of INSERT … SELECT from a derived table saved 15% of a lock+unlock on MariaDB
            String free = "(owner_token IS NULL OR expires_at <= VALUES(lock_time)" + orTakenOver + ")";
            String now = now();
            return "INSERT INTO " + table + " (" + COLUMNS + ", last_modified) VALUES (?, ?, ?, ?, 'RUNNING', "
                    + now + ", " + now + " + ?, " + now + " * 1000, " + now + ") "
                    + "ON DUPLICATE KEY UPDATE "
                    + "fencing_token = IF(" + free + ", GREATEST(fencing_token + 1, VALUES(fencing_token)), fencing_token), "
                    + "node_id = IF(" + free + ", VALUES(node_id), node_id), "
                    + "thread_name = IF(" + free + ", VALUES(thread_name), thread_name), "
                    + "status = IF(" + free + ", 'RUNNING', status), "
                    + "last_modified = IF(" + free + ", VALUES(last_modified), last_modified), "
                    + "lock_time = IF(" + free + ", VALUES(lock_time), lock_time), "
                    + "owner_token = IF(" + free + ", VALUES(owner_token), owner_token), "
                    + "expires_at = IF(owner_token = VALUES(owner_token), VALUES(expires_at), expires_at)"
                    + (returning ? " RETURNING " + COLUMNS : "");
        }

        @Override
        String keyColumnProblem(Connection c, String table) throws SQLException {
            try (PreparedStatement column = c.prepareStatement("SELECT CHARACTER_MAXIMUM_LENGTH, CHARACTER_SET_NAME, "
                    + "COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) "
                    + "AND TABLE_NAME = ? AND COLUMN_NAME = 'lock_key'")) {
                column.setString(1, schemaOf(table));
                column.setString(2, unqualified(table));
                try (ResultSet rs = column.executeQuery()) {
                    if (!rs.next()) {
                        return "it has no lock_key column";
                    }
                    String charset = rs.getString(2);
                    String collation = String.valueOf(rs.getString(3));
                    if (!"utf8mb4".equalsIgnoreCase(charset)) {
                        return "lock_key has character set " + charset + ", which cannot hold every key; use utf8mb4";
                    }
                    boolean binaryNoPad = collation.endsWith("_nopad_bin") || collation.equals("utf8mb4_0900_bin");
                    if (!binaryNoPad) {
                        return "lock_key has collation " + collation + ", under which distinct keys such as 'a' and "
                                + "'A', 'a' and 'a ', or 'e' and 'é' are one lock; use "
                                + (name.equals("MySQL") ? "utf8mb4_0900_bin" : "utf8mb4_nopad_bin");
                    }
                    return tooShort(rs.getInt(1));
                }
            }
        }
    }

    private static final class H2 extends SqlDialect {
        @Override
        String name() {
            return "H2";
        }

        @Override
        String admitFence(String table) {
            return "MERGE INTO " + table + " f USING (SELECT CAST(? AS VARCHAR(" + FencingTable.MAX_RESOURCE_LENGTH
                    + ")) resource, CAST(? AS BIGINT) token) s ON f.resource = s.resource "
                    + "WHEN MATCHED THEN UPDATE SET token = GREATEST(f.token, s.token) "
                    + "WHEN NOT MATCHED THEN INSERT (resource, token) VALUES (s.resource, s.token)";
        }

        @Override
        String now() {
            return "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP(3)) * 1000 AS BIGINT)";
        }

        @Override
        String ddlFile() {
            return "h2.sql";
        }

        @Override
        String acquire(String table) {
            return acquire(table, "");
        }

        @Override
        String handOff(String table) {
            return acquire(table, " OR t.owner_token = ?");
        }

        private String acquire(String table, String orTakenOver) {
            return "MERGE INTO " + table + " t USING (SELECT CAST(? AS VARCHAR(400)) lock_key, CAST(? AS VARCHAR(64)) "
                    + "owner_token, CAST(? AS VARCHAR(128)) node_id, CAST(? AS VARCHAR(256)) thread_name, n, "
                    + "n + CAST(? AS BIGINT) expires_at FROM (SELECT " + now() + " n)) s ON t.lock_key = s.lock_key "
                    + "WHEN MATCHED AND (t.owner_token IS NULL OR t.expires_at <= s.n" + orTakenOver + ") "
                    + "THEN UPDATE SET "
                    + "owner_token = s.owner_token, node_id = s.node_id, thread_name = s.thread_name, status = 'RUNNING', "
                    + "lock_time = s.n, expires_at = s.expires_at, fencing_token = GREATEST(t.fencing_token + 1, "
                    + "s.n * 1000), last_modified = s.n "
                    + "WHEN NOT MATCHED THEN INSERT (" + COLUMNS + ", last_modified) VALUES (s.lock_key, s.owner_token, "
                    + "s.node_id, s.thread_name, 'RUNNING', s.n, s.expires_at, s.n * 1000, s.n)";
        }

        @Override
        String keyColumnProblem(Connection c, String table) throws SQLException {
            try (PreparedStatement column = c.prepareStatement("SELECT CHARACTER_MAXIMUM_LENGTH FROM "
                    + "INFORMATION_SCHEMA.COLUMNS WHERE UPPER(TABLE_NAME) = UPPER(?) AND UPPER(COLUMN_NAME) = 'LOCK_KEY' "
                    + "AND (? IS NULL OR UPPER(TABLE_SCHEMA) = UPPER(?))")) {
                String schema = schemaOf(table);
                column.setString(1, unqualified(table));
                column.setString(2, schema);
                column.setString(3, schema);
                try (ResultSet rs = column.executeQuery()) {
                    return rs.next() ? tooShort(rs.getInt(1)) : "it has no lock_key column";
                }
            }
        }
    }
}
