package io.github.lockmanager.store.jdbc;

import java.util.Locale;

/**
 * What differs between databases: the clock expression, the table's DDL and the one atomic acquire statement.
 * Every time is epoch milliseconds from the database's own clock ({@link #now()}), so leases never depend on an
 * application server's clock or time zone.
 *
 * <p>The acquire statement takes, in order: key, owner token, node, thread, lease (ms). It inserts the row when
 * absent, or takes over a row that is free or whose lease has ended, moving the fencing token forward in the
 * same statement; a live row of another owner is left as it is.
 */
abstract class SqlDialect {
    static final String COLUMNS = "lock_key, owner_token, node_id, thread_name, status, lock_time, expires_at, "
            + "fencing_token";

    abstract String name();

    /** The database's current time in epoch milliseconds, as an SQL expression. */
    abstract String now();

    abstract String createTable(String table);

    abstract String acquire(String table);

    /** Whether {@link #acquire} returns the row it took (else a read of the row follows). */
    boolean acquireReturnsRow() {
        return false;
    }

    /**
     * A renew statement that extends and returns the renewed rows ({@code owner_token, status}) in one round trip,
     * for {@code n} keys and {@code n} owner tokens; {@code null} where the database cannot return updated rows.
     */
    String renewReturning(String table, String keys, String owners) {
        return null;
    }

    /** The dialect of a database, by the product name its driver reports; {@code null} if not supported. */
    static SqlDialect of(String productName) {
        String product = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
        if (product.contains("postgresql")) {
            return new Postgres();
        }
        if (product.contains("mariadb")) {
            return new MySql("MariaDB", "utf8mb4_nopad_bin");
        }
        if (product.contains("mysql")) {
            return new MySql("MySQL", "utf8mb4_0900_bin");
        }
        if (product.equals("h2")) {
            return new H2();
        }
        return null;
    }

    private static final class Postgres extends SqlDialect {
        @Override
        String name() {
            return "PostgreSQL";
        }

        @Override
        String now() {
            return "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)";
        }

        @Override
        String createTable(String table) {
            // "C": byte-wise equality, whatever the database's default collation
            return "CREATE TABLE IF NOT EXISTS " + table + " (lock_key VARCHAR(400) COLLATE \"C\" NOT NULL PRIMARY KEY, "
                    + "owner_token VARCHAR(64), node_id VARCHAR(128), thread_name VARCHAR(256), status VARCHAR(8) NOT NULL, "
                    + "lock_time BIGINT NOT NULL, expires_at BIGINT NOT NULL, fencing_token BIGINT NOT NULL, "
                    + "last_modified BIGINT NOT NULL)";
        }

        @Override
        String acquire(String table) {
            return "INSERT INTO " + table + " AS t (" + COLUMNS + ", last_modified) "
                    + "SELECT ?, ?, ?, ?, 'RUNNING', n, n + ?, 1, n FROM (SELECT " + now() + " AS n) c "
                    + "ON CONFLICT (lock_key) DO UPDATE SET owner_token = EXCLUDED.owner_token, "
                    + "node_id = EXCLUDED.node_id, thread_name = EXCLUDED.thread_name, status = 'RUNNING', "
                    + "lock_time = EXCLUDED.lock_time, expires_at = EXCLUDED.expires_at, "
                    + "fencing_token = t.fencing_token + 1, last_modified = EXCLUDED.last_modified "
                    + "WHERE t.owner_token IS NULL OR t.expires_at <= EXCLUDED.lock_time "
                    + "RETURNING " + COLUMNS;
        }

        @Override
        boolean acquireReturnsRow() {
            return true;
        }

        @Override
        String renewReturning(String table, String keys, String owners) {
            return "UPDATE " + table + " SET expires_at = " + now() + " + ?, last_modified = " + now()
                    + " WHERE lock_key IN (" + keys + ") AND owner_token IN (" + owners + ") AND expires_at > " + now()
                    + " RETURNING owner_token, status";
        }
    }

    private static final class MySql extends SqlDialect {
        private final String name;
        private final String keyCollation;

        MySql(String name, String keyCollation) {
            this.name = name;
            this.keyCollation = keyCollation;
        }

        @Override
        String name() {
            return name;
        }

        @Override
        String now() {
            return "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)";
        }

        @Override
        String createTable(String table) {
            // a binary, no-pad collation: 'é' <> 'e', 'A' <> 'a' and 'a' <> 'a ' must stay different locks
            return "CREATE TABLE IF NOT EXISTS " + table + " ("
                    + "lock_key VARCHAR(400) CHARACTER SET utf8mb4 COLLATE " + keyCollation + " NOT NULL, "
                    + "owner_token VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL, "
                    + "node_id VARCHAR(128) CHARACTER SET utf8mb4 NULL, thread_name VARCHAR(256) CHARACTER SET utf8mb4 NULL, "
                    + "status VARCHAR(8) NOT NULL, lock_time BIGINT NOT NULL, expires_at BIGINT NOT NULL, "
                    + "fencing_token BIGINT NOT NULL, last_modified BIGINT NOT NULL, PRIMARY KEY (lock_key)) ENGINE=InnoDB";
        }

        @Override
        String acquire(String table) {
            // assignments run left to right and see earlier ones: the take-over test reads owner_token and
            // expires_at, so those two are assigned last, expires_at after owner_token shows whether we took it
            String free = "(owner_token IS NULL OR expires_at <= VALUES(lock_time))";
            return "INSERT INTO " + table + " (" + COLUMNS + ", last_modified) "
                    + "SELECT ?, ?, ?, ?, 'RUNNING', n, n + ?, 1, n FROM (SELECT " + now() + " AS n) c "
                    + "ON DUPLICATE KEY UPDATE "
                    + "fencing_token = IF(" + free + ", fencing_token + 1, fencing_token), "
                    + "node_id = IF(" + free + ", VALUES(node_id), node_id), "
                    + "thread_name = IF(" + free + ", VALUES(thread_name), thread_name), "
                    + "status = IF(" + free + ", 'RUNNING', status), "
                    + "last_modified = IF(" + free + ", VALUES(last_modified), last_modified), "
                    + "lock_time = IF(" + free + ", VALUES(lock_time), lock_time), "
                    + "owner_token = IF(" + free + ", VALUES(owner_token), owner_token), "
                    + "expires_at = IF(owner_token = VALUES(owner_token), VALUES(expires_at), expires_at)";
        }
    }

    private static final class H2 extends SqlDialect {
        @Override
        String name() {
            return "H2";
        }

        @Override
        String now() {
            return "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP(3)) * 1000 AS BIGINT)";
        }

        @Override
        String createTable(String table) {
            return "CREATE TABLE IF NOT EXISTS " + table + " (lock_key VARCHAR(400) NOT NULL PRIMARY KEY, "
                    + "owner_token VARCHAR(64), node_id VARCHAR(128), thread_name VARCHAR(256), status VARCHAR(8) NOT NULL, "
                    + "lock_time BIGINT NOT NULL, expires_at BIGINT NOT NULL, fencing_token BIGINT NOT NULL, "
                    + "last_modified BIGINT NOT NULL)";
        }

        @Override
        String acquire(String table) {
            return "MERGE INTO " + table + " t USING (SELECT CAST(? AS VARCHAR(400)) lock_key, CAST(? AS VARCHAR(64)) "
                    + "owner_token, CAST(? AS VARCHAR(128)) node_id, CAST(? AS VARCHAR(256)) thread_name, n, "
                    + "n + CAST(? AS BIGINT) expires_at FROM (SELECT " + now() + " n)) s ON t.lock_key = s.lock_key "
                    + "WHEN MATCHED AND (t.owner_token IS NULL OR t.expires_at <= s.n) THEN UPDATE SET "
                    + "owner_token = s.owner_token, node_id = s.node_id, thread_name = s.thread_name, status = 'RUNNING', "
                    + "lock_time = s.n, expires_at = s.expires_at, fencing_token = t.fencing_token + 1, last_modified = s.n "
                    + "WHEN NOT MATCHED THEN INSERT (" + COLUMNS + ", last_modified) VALUES (s.lock_key, s.owner_token, "
                    + "s.node_id, s.thread_name, 'RUNNING', s.n, s.expires_at, 1, s.n)";
        }
    }
}
