package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.store.support.RetryPolicy;
import io.github.lockmanager.store.support.RetryPolicy.Failure;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.sql.SQLTransientException;
import java.util.Set;

/**
 * How the JDBC store reads a failed statement, by SQL state and vendor code: what a server restart, a killed
 * backend or a dropped socket leaves on a pooled connection is a broken connection (retried at once on the next
 * one); deadlocks, lock and statement timeouts and serialization failures are transient; the rest is permanent.
 */
final class SqlFailures implements RetryPolicy.Classifier {
    static final SqlFailures INSTANCE = new SqlFailures();

    /** PostgreSQL's admin_shutdown, crash_shutdown, cannot_connect_now; MySQL/MariaDB's "connection killed". */
    private static final Set<String> BROKEN_STATES = Set.of("57P01", "57P02", "57P03", "70100");
    /** Serialization failure, deadlock, lock not available, statement cancelled by its timeout, too many connections. */
    private static final Set<String> TRANSIENT_STATES = Set.of("40001", "40P01", "55P03", "57014", "53300", "HYT00");
    /** MySQL/MariaDB: deadlock, lock wait timeout, query interrupted, too many connections. */
    private static final Set<Integer> TRANSIENT_VENDOR_CODES = Set.of(1213, 1205, 1317, 1040);
    /** MySQL/MariaDB: connection killed, server gone away, lost connection. */
    private static final Set<Integer> BROKEN_VENDOR_CODES = Set.of(1927, 2006, 2013);

    private SqlFailures() {
    }

    @Override
    public Failure classify(Exception failure) {
        if (!(failure instanceof SQLException)) {
            return Failure.PERMANENT;
        }
        SQLException sql = (SQLException) failure;
        if (isConnectionTrouble(sql)) {
            return Failure.BROKEN_CONNECTION;
        }
        String state = String.valueOf(sql.getSQLState());
        return sql instanceof SQLTransientException || TRANSIENT_STATES.contains(state)
                || TRANSIENT_VENDOR_CODES.contains(sql.getErrorCode()) ? Failure.TRANSIENT : Failure.PERMANENT;
    }

    @Override
    public ErrorCode permanentCode(Exception failure) {
        return failure instanceof SQLException && !isConnectionTrouble((SQLException) failure)
                ? ErrorCode.INTERNAL_ERROR : ErrorCode.CONNECTION_ERROR;
    }

    @Override
    public String describe(Exception failure) {
        if (!(failure instanceof SQLException)) {
            return failure.toString();
        }
        SQLException sql = (SQLException) failure;
        return sql.getMessage() + " (SQL state " + sql.getSQLState() + ", vendor code " + sql.getErrorCode() + ")";
    }

    static boolean isConnectionTrouble(SQLException e) {
        String state = String.valueOf(e.getSQLState());
        return e instanceof SQLRecoverableException || e instanceof SQLNonTransientConnectionException
                || e instanceof SQLTransientConnectionException || state.startsWith("08")
                || BROKEN_STATES.contains(state) || BROKEN_VENDOR_CODES.contains(e.getErrorCode());
    }

    static boolean isUniqueViolation(SQLException e) {
        return "23505".equals(e.getSQLState()) || e.getErrorCode() == 1062
                || (e.getSQLState() != null && e.getSQLState().startsWith("23") && e.getMessage() != null
                && e.getMessage().toLowerCase().contains("unique"));
    }
}
