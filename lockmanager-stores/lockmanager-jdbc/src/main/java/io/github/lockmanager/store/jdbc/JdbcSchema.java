package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * The JDBC store's tables: created from the dialect's DDL when absent (by several nodes at once too), their key
 * columns checked, and on PostgreSQL the column that marks waiters added to a table made before it existed.
 */
final class JdbcSchema {
    private static final Logger log = LoggerFactory.getLogger(JdbcSchema.class);

    private final DataSource dataSource;
    private final String table;
    private final Duration operationTimeout;

    JdbcSchema(DataSource dataSource, String table, Duration operationTimeout) {
        this.dataSource = dataSource;
        this.table = table;
        this.operationTimeout = operationTimeout;
    }

    /**
     * Creates and checks the lock table and its holders table.
     *
     * @return whether releases can be announced to waiters (PostgreSQL, with the waiters column in place)
     * @throws LockManagerException if a table cannot be created, or exists with a key column the store cannot use
     */
    boolean create(JdbcStatements sql) throws LockManagerException {
        try (Connection c = dataSource.getConnection()) {
            // the lock table first: a holders table is not made for a lock table the store refuses
            List<String> tables = sql.dialect.createTables(table);
            create(c, sql.dialect, tables.get(0), table);
            String problem = keyColumnProblem(sql.dialect, c, table);
            if (problem == null) {
                String holders = table + "_holders";
                for (String ddl : tables.subList(1, tables.size())) {
                    create(c, sql.dialect, ddl, holders);
                }
                String holdersProblem = keyColumnProblem(sql.dialect, c, holders);
                problem = holdersProblem == null ? null : "in its holders table " + holders + ", " + holdersProblem;
            }
            if (!c.getAutoCommit()) {
                c.commit();
            }
            if (problem != null) {
                throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "lock table " + table + " on "
                        + sql.dialect.name() + " exists with a layout the store cannot use: " + problem + ". Recreate it "
                        + "from " + sql.dialect.ddlFile() + " in the lockmanager jar, or choose another table name.");
            }
            return sql.releaseAnnouncing != null && waitersColumn(c, sql.dialect);
        } catch (SQLException e) {
            throw new LockManagerException(ErrorCode.CONNECTION_ERROR, "could not reach the database to create lock table "
                    + table + ": " + SqlFailures.INSTANCE.describe(e), e);
        }
    }

    /**
     * Whether the table has the column waiters mark, adding it to a table made before it existed; without it (the
     * table's owner must add it) waiters poll, which is said once.
     */
    private boolean waitersColumn(Connection c, SqlDialect dialect) throws SQLException {
        if (dialect.hasWaitersColumn(c, table)) {
            return true;
        }
        try (PreparedStatement add = c.prepareStatement(dialect.addWaitersColumn(table))) {
            add.execute();
            if (!c.getAutoCommit()) {
                c.commit();
            }
            log.info("Added the column waiters to lock table {}: waiters on other nodes are now woken by releases",
                    table);
            return true;
        } catch (SQLException e) {
            if (!c.getAutoCommit()) {
                c.rollback();
            }
            log.warn("Lock table {} has no column waiters and it could not be added ({}); waiters poll instead of "
                    + "being woken by releases. Its owner can add it: {}", table, SqlFailures.INSTANCE.describe(e),
                    dialect.addWaitersColumn(table));
            return false;
        }
    }

    private void create(Connection c, SqlDialect dialect, String ddl, String created) throws LockManagerException {
        try (PreparedStatement create = c.prepareStatement(ddl)) {
            create.setQueryTimeout(JdbcRows.timeoutSeconds(operationTimeout.toMillis()) * 6);
            create.execute();
            log.debug("Lock table {} is in place on {}", created, dialect.name());
        } catch (SQLException e) {
            // another node may have created it at the same moment (PostgreSQL then reports a duplicate type)
            if (!tableExists(c, created)) {
                throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "could not create lock table " + created
                        + " on " + dialect.name() + ": " + SqlFailures.INSTANCE.describe(e), e);
            }
        }
    }

    /** What is wrong with the key column of an existing table; a failed inspection is said as such. */
    private static String keyColumnProblem(SqlDialect dialect, Connection c, String table) throws LockManagerException {
        try {
            return dialect.keyColumnProblem(c, table);
        } catch (SQLException e) {
            throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "could not inspect the key column of lock "
                    + "table " + table + " on " + dialect.name() + ": " + SqlFailures.INSTANCE.describe(e), e);
        }
    }

    private static boolean tableExists(Connection c, String table) {
        try (PreparedStatement probe = c.prepareStatement("SELECT COUNT(*) FROM " + table + " WHERE 1 = 0");
             ResultSet ignored = probe.executeQuery()) {
            return true;
        } catch (SQLException e) {
            return false;
        }
    }
}
