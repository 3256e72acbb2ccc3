package io.github.lockmanager.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** MariaDB and MySQL 8: an upsert per acquisition (returning the grant on MariaDB 10.5 and later). */
final class MySqlDialect extends SqlDialect {
    private final String name;
    private final String ddlFile;

    /** MariaDB 10.5 and later: the upsert returns the row as it left it (ours, or the holder's). */
    private final boolean returning;

    MySqlDialect(String name, String ddlFile, boolean returning) {
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
        if (!returning) {
            throw unsupported("shared row locks");
        }
        return "LOCK IN SHARE MODE";
    }

    @Override
    Capabilities capabilities() {
        return returning ? new Capabilities(false, false, true) : Capabilities.NONE;
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
     * The statement's start as seconds since the epoch, with microseconds: the instant NOW() stands for, without
     * the session's time zone (UNIX_TIMESTAMP(NOW()) converts local time back, an hour off inside the repeated hour
     * of a daylight-saving change). A double, exact for whole milliseconds until the year 2255 once multiplied by the
     * fencing epoch's 1000; rounding down is monotonic, so a later statement never reads an earlier time. Short to
     * parse: with the drivers' default, client-side prepared statements, the server parses every statement again.
     */
    @Override
    String now() {
        return "FLOOR(@@timestamp * 1000)";
    }

    @Override
    String ddlFile() {
        return ddlFile;
    }

    @Override
    String acquire(String table) {
        // assignments run left to right and see earlier ones: the take-over test reads owner_token and
        // expires_at, so those two are assigned last, expires_at after owner_token shows whether we took it
        // the clock is read once per statement (at its start), so repeating now() repeats one value; a
        // VALUES row instead of INSERT … SELECT from a derived table, which cost MariaDB more per lock+unlock
        String free = "(owner_token IS NULL OR expires_at <= VALUES(lock_time))";
        String now = now();
        return "INSERT INTO " + table + " (" + COLUMNS + ", last_modified) VALUES (?, ?, ?, ?, 'RUNNING', "
                + now + ", " + now + " + ?, " + now + " * " + TOKENS + ", " + now + ") "
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
