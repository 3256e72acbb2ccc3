package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Renewal and check of a batch of locks: one statement on the lock table for the whole batch (arrays on PostgreSQL,
 * a padded IN-list elsewhere), completed from the holders table for the handles the lock table did not find.
 */
final class JdbcBatches {
    private JdbcBatches() {
    }

    /** The lock table's answer for {@code handles}: only exclusive holders are found there. */
    static Map<LockHandle, HoldState> renewRows(JdbcStatements sql, Connection c, long timeout,
                                                        List<LockHandle> handles, Duration lease) throws SQLException {
        if (sql.renewByArrays != null) {
            try (PreparedStatement renew = JdbcRows.prepare(c, sql.renewByArrays, timeout)) {
                renew.setLong(1, lease.toMillis());
                JdbcRows.bindArrays(c, renew, 2, handles);
                return JdbcRows.answers(handles, renew);
            }
        }
        int n = JdbcRows.paddedSize(handles.size());
        return JdbcRows.inTransaction(c, () -> {
            try (PreparedStatement renew = JdbcRows.prepare(c, sql.renew(n), timeout)) {
                renew.setLong(1, lease.toMillis());
                JdbcRows.bindBatch(renew, 2, handles, n);
                renew.executeUpdate();
            }
            try (PreparedStatement states = JdbcRows.prepare(c, sql.states(n), timeout)) {
                JdbcRows.bindBatch(states, 1, handles, n);
                return JdbcRows.answers(handles, states);
            }
        });
    }

    static Map<LockHandle, HoldState> checkRows(JdbcStatements sql, Connection c, long timeout,
                                                        List<LockHandle> handles) throws SQLException {
        if (sql.statesByArrays != null) {
            try (PreparedStatement states = JdbcRows.prepare(c, sql.statesByArrays, timeout)) {
                JdbcRows.bindArrays(c, states, 1, handles);
                return JdbcRows.answers(handles, states);
            }
        }
        int n = JdbcRows.paddedSize(handles.size());
        try (PreparedStatement states = JdbcRows.prepare(c, sql.states(n), timeout)) {
            JdbcRows.bindBatch(states, 1, handles, n);
            return JdbcRows.answers(handles, states);
        }
    }

    @FunctionalInterface
    interface HolderAnswers {
        Map<LockHandle, HoldState> ask(List<LockHandle> handles) throws SQLException;
    }

    /**
     * The lock table's {@code answers}, completed by the holders table for the handles the lock table did not
     * find: those are holders in another mode, or lost. A node holding only exclusive locks never asks the holders
     * table, unless one of its locks is lost.
     */
    static Map<LockHandle, HoldState> withHolders(List<LockHandle> handles, Map<LockHandle, HoldState> answers,
                                                          HolderAnswers holders) throws SQLException {
        List<LockHandle> notFound = new ArrayList<>();
        for (LockHandle handle : handles) {
            if (answers.get(handle) == HoldState.LOST) {
                notFound.add(handle);
            }
        }
        if (notFound.isEmpty()) {
            return answers;
        }
        Map<LockHandle, HoldState> all = new LinkedHashMap<>(answers);
        all.putAll(holders.ask(notFound));
        return all;
    }
}
