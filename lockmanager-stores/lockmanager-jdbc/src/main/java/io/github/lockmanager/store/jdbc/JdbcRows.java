package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.LockStatus;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How the JDBC store speaks to its tables, the same for every dialect: statements with their timeouts, parameters
 * bound for one lock or a batch, rows read into records and answers, and transactions of several statements.
 */
final class JdbcRows {
    private static final int MAX_THREAD_NAME = 256;

    private JdbcRows() {
    }

    /**
     * A statement over many rows, with the remaining time as its query timeout as well, so that the server cancels
     * it and the connection stays usable. Statements on one key's row go without: they are bounded by the network
     * timeout alone, because the driver implements a query timeout (PostgreSQL's) with a task on its timer thread
     * per statement, a visible part of an uncontended lock+unlock.
     */
    static PreparedStatement prepare(Connection c, String statement, long timeoutMillis) throws SQLException {
        PreparedStatement prepared = c.prepareStatement(statement);
        prepared.setQueryTimeout(timeoutSeconds(timeoutMillis));
        return prepared;
    }

    static int timeoutSeconds(long millis) {
        return (int) Math.max(1, (millis + 999) / 1000);
    }

    static Optional<LockRecord> queryOne(Connection c, String statement, LockKey key) throws SQLException {
        try (PreparedStatement read = c.prepareStatement(statement)) {
            read.setString(1, key.storageKey());
            try (ResultSet rs = read.executeQuery()) {
                return rs.next() ? Optional.of(toRecord(rs, key)) : Optional.empty();
            }
        }
    }

    /** Binds {@code n} keys, then {@code n} owner tokens, repeating the last lock to fill the padding. */
    static void bindBatch(PreparedStatement statement, int first, List<LockHandle> handles, int n)
            throws SQLException {
        for (int i = 0; i < n; i++) {
            LockHandle handle = handles.get(Math.min(i, handles.size() - 1));
            statement.setString(first + i, handle.key().storageKey());
            statement.setString(first + n + i, handle.ownerToken());
        }
    }

    /** Binds the keys as one array and the owner tokens as another, in the same order. */
    static void bindArrays(Connection c, PreparedStatement statement, int first, List<LockHandle> handles)
            throws SQLException {
        String[] keys = new String[handles.size()];
        String[] owners = new String[handles.size()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = handles.get(i).key().storageKey();
            owners[i] = handles.get(i).ownerToken();
        }
        statement.setArray(first, c.createArrayOf("varchar", keys));
        statement.setArray(first + 1, c.createArrayOf("varchar", owners));
    }

    /** Every handle whose owner token came back is held; the others are lost. */
    static Map<LockHandle, HoldState> answers(List<LockHandle> handles, PreparedStatement statement)
            throws SQLException {
        Map<String, String> statusByOwner = new HashMap<>();
        try (ResultSet rs = statement.executeQuery()) {
            while (rs.next()) {
                statusByOwner.put(rs.getString(1), rs.getString(2));
            }
        }
        Map<LockHandle, HoldState> answers = new LinkedHashMap<>();
        for (LockHandle handle : handles) {
            String status = statusByOwner.get(handle.ownerToken());
            answers.put(handle, HoldState.of(status != null, LockStatus.ABORT.name().equals(status)));
        }
        return answers;
    }

    /**
     * The record in a row of {@link SqlDialect#COLUMNS}, read by position; {@code key} is the row's key when the
     * caller knows it (then the stored form is not parsed again), else {@code null}.
     */
    static LockRecord toRecord(ResultSet rs, LockKey key) throws SQLException {
        return new LockRecord(new LockHandle(key != null ? key : LockKey.parse(rs.getString(1)), rs.getString(2)),
                rs.getString(3), rs.getString(4), Instant.ofEpochMilli(rs.getLong(6)), Instant.ofEpochMilli(rs.getLong(7)),
                LockStatus.valueOf(rs.getString(5)), rs.getLong(8));
    }

    /**
     * The record an acquire statement of {@link SqlDialect.AcquireAnswer#GRANT} wrote for {@code request}, with the
     * thread name as it stored it.
     */
    static LockRecord granted(LockRequest request, String threadName, Duration lease, ResultSet rs)
            throws SQLException {
        long lockTime = rs.getLong(1);
        return new LockRecord(request.handle(), request.nodeId(), threadName,
                Instant.ofEpochMilli(lockTime), Instant.ofEpochMilli(lockTime + lease.toMillis()), LockStatus.RUNNING,
                rs.getLong(2));
    }

    /** {@code n} parameter marks, for an IN-list. */
    static String marks(int n) {
        return String.join(", ", Collections.nCopies(n, "?"));
    }

    static int paddedSize(int n) {
        return n <= 1 ? 1 : Integer.highestOneBit(n - 1) << 1;
    }

    /** Thread names are shown, not compared: cut to the column and rid of the one character no database keeps. */
    static String storableThreadName(String name) {
        String cut = name.length() > MAX_THREAD_NAME ? name.substring(0, MAX_THREAD_NAME) : name;
        return cut.replace('\u0000', '?');
    }

    @FunctionalInterface
    interface SqlBody<T> {
        T run() throws SQLException;
    }

    /** Runs {@code body} in one transaction, committed or rolled back before the connection goes back. */
    static <T> T inTransaction(Connection c, SqlBody<T> body) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        try {
            T result = body.run();
            c.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(autoCommit);
        }
    }
}
