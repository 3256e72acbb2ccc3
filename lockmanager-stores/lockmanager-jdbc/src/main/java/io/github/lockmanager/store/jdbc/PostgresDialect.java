package io.github.lockmanager.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** PostgreSQL: one statement per call, batches by arrays, releases announced by NOTIFY. */
final class PostgresDialect extends SqlDialect {
    @Override
    Capabilities capabilities() {
        return new Capabilities(true, true, true);
    }

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
        return acquire(table, "");
    }

    /* the clock read once for the row, as in the acquire; RETURNING answers only a row the statement took */
    @Override
    String handOff(String table) {
        return "UPDATE " + table + " AS t SET fencing_token = GREATEST(t.fencing_token + 1, c.n * " + TOKENS + "), "
                + "owner_token = ?, node_id = ?, thread_name = ?, status = 'RUNNING', lock_time = c.n, "
                + "expires_at = c.n + ?, last_modified = c.n FROM (SELECT " + now() + " AS n) c "
                + "WHERE t.lock_key = ? AND t.owner_token = ? RETURNING t.lock_time, t.fencing_token";
    }

    @Override
    AcquireAnswer handOffAnswer() {
        return AcquireAnswer.GRANT;
    }

    @Override
    String acquireClearingWaiters(String table) {
        return acquire(table, "waiters = FALSE, ");
    }

    private String acquire(String table, String alsoSet) {
        return "INSERT INTO " + table + " AS t (" + COLUMNS + ", last_modified) "
                + "SELECT ?, ?, ?, ?, 'RUNNING', n, n + ?, n * " + TOKENS + ", n FROM (SELECT " + now() + " AS n) c "
                + "ON CONFLICT (lock_key) DO UPDATE SET " + alsoSet + "owner_token = EXCLUDED.owner_token, "
                + "node_id = EXCLUDED.node_id, thread_name = EXCLUDED.thread_name, status = 'RUNNING', "
                + "lock_time = EXCLUDED.lock_time, expires_at = EXCLUDED.expires_at, "
                + "fencing_token = GREATEST(t.fencing_token + 1, EXCLUDED.fencing_token), "
                + "last_modified = EXCLUDED.last_modified "
                + "WHERE t.owner_token IS NULL OR t.expires_at <= EXCLUDED.lock_time"
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
