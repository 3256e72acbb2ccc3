package io.github.lockmanager.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** H2, for tests and single-process use: a MERGE per acquisition, then a read. */
final class H2Dialect extends SqlDialect {
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
        return "MERGE INTO " + table + " t USING (SELECT CAST(? AS VARCHAR(400)) lock_key, CAST(? AS VARCHAR(64)) "
                + "owner_token, CAST(? AS VARCHAR(128)) node_id, CAST(? AS VARCHAR(256)) thread_name, n, "
                + "n + CAST(? AS BIGINT) expires_at FROM (SELECT " + now() + " n)) s ON t.lock_key = s.lock_key "
                + "WHEN MATCHED AND (t.owner_token IS NULL OR t.expires_at <= s.n) "
                + "THEN UPDATE SET "
                + "owner_token = s.owner_token, node_id = s.node_id, thread_name = s.thread_name, status = 'RUNNING', "
                + "lock_time = s.n, expires_at = s.expires_at, fencing_token = GREATEST(t.fencing_token + 1, "
                + "s.n * " + TOKENS + "), last_modified = s.n "
                + "WHEN NOT MATCHED THEN INSERT (" + COLUMNS + ", last_modified) VALUES (s.lock_key, s.owner_token, "
                + "s.node_id, s.thread_name, 'RUNNING', s.n, s.expires_at, s.n * " + TOKENS + ", s.n)";
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
