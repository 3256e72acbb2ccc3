package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.store.support.RetryPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The JDBC store's calls: each on a connection of the data source, in auto-commit mode, bounded by the operation
 * timeout on the socket too, retried as {@link SqlFailures} says, and the connection given back as it came.
 */
final class JdbcAccess {
    private static final Logger log = LoggerFactory.getLogger(JdbcAccess.class);

    /** Network timeouts are enforced by the driver's socket; no executor work is needed. */
    private static final Executor DIRECT = Runnable::run;

    @FunctionalInterface
    interface SqlCall<T> {
        T run(Connection c, long timeoutMillis) throws SQLException;
    }

    private final DataSource dataSource;
    private final String table;
    private final Duration operationTimeout;
    private final RetryPolicy retries;

    /** Whether the log has said that the pool gives connections with auto-commit off (see {@link #call}). */
    private final AtomicBoolean manualCommitSaid = new AtomicBoolean();

    JdbcAccess(DataSource dataSource, String table, Duration operationTimeout, RetryPolicy retries) {
        this.dataSource = dataSource;
        this.table = table;
        this.operationTimeout = operationTimeout;
        this.retries = retries;
    }

    /**
     * Runs {@code body} on a connection of the data source, retried as {@link SqlFailures} says, each attempt
     * bounded by what is left of the operation timeout, also on the socket: a query timeout alone is a cancel
     * request, which a partitioned network swallows as well. The connection is in auto-commit mode while it runs,
     * whatever mode the pool gives it in: each statement must be committed when it answers (a grant the caller is
     * told of must be in the table), and a pool with auto-commit off rolled the store's writes back when it took its
     * connection back, so that two owners were granted one key.
     */
    <T> T call(String what, SqlCall<T> body) throws LockManagerException {
        return retries.call(what + " in table " + table, operationTimeout, SqlFailures.INSTANCE, remaining -> {
            try (Connection c = dataSource.getConnection()) {
                int networkTimeout = c.getNetworkTimeout();
                boolean autoCommit = c.getAutoCommit();
                c.setNetworkTimeout(DIRECT, (int) Math.min(Integer.MAX_VALUE, remaining));
                try {
                    if (!autoCommit) {
                        c.setAutoCommit(true);
                        if (manualCommitSaid.compareAndSet(false, true)) {
                            log.info("The data source of lock table {} gives connections with auto-commit off: each "
                                    + "store call switches its connection to auto-commit and back, which some drivers "
                                    + "(MariaDB's) send as two more statements. A pool with auto-commit on for the "
                                    + "store saves them", table);
                        }
                    }
                    return body.run(c, remaining);
                } finally {
                    restore(c, networkTimeout, autoCommit);
                }
            }
        });
    }

    /** Gives the pool its connection back as it was; a connection that broke is discarded by the pool anyway. */
    private static void restore(Connection c, int networkTimeout, boolean autoCommit) {
        try {
            if (!c.isClosed()) {
                c.setNetworkTimeout(DIRECT, networkTimeout);
                if (!autoCommit) {
                    c.setAutoCommit(false);
                }
            }
        } catch (SQLException e) {
            log.debug("Could not restore the network timeout or auto-commit mode of a connection that failed: {}",
                    e.toString());
        }
    }
}
