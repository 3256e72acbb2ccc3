package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.store.support.Admission;
import io.github.lockmanager.store.support.HolderMarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The holders table of the JDBC store, one row per holder in a mode other than exclusive: releasing, renewing and
 * checking holders, abort marks, and reading them for the admin views. Taking a holder place is
 * {@link SharedHolders}'s.
 */
final class HolderReads {
    /** A holder's columns: a record's, then its mode. */
    static final String COLUMNS = SqlDialect.COLUMNS + ", lock_mode";
    /** The marks in SQL, for {@code owner_token IN} and {@code NOT IN}. */
    static final String MARKS = "('" + HolderMarks.SHARED + "', '" + HolderMarks.INTENT + "', '" + HolderMarks.PERMIT
            + "')";
    /**
     * How much longer than a holder's lease a marked row's runs: holders joining within that much of the last
     * renewal or mark find it covering them without a write to the row. A crashed node's holders do not keep
     * writers out for longer by it: see {@link SharedHolders#takeOver}.
     */
    static final int ROW_LEASES_PER_HOLDER_LEASE = 2;


    private final SqlDialect dialect;
    private final String table;
    private final String holders;
    private final String liveHoldersOfKey;
    private final String anyLiveHolderOfKey;
    private final String deleteHolder;
    private final String abort;
    private final String listLive;
    private final String purge;

    /** @param unflushed what ends a release's condition ({@link SqlDialect#commitWithoutFlush}, or nothing) */
    HolderReads(SqlDialect dialect, String table, String unflushed) {
        this.dialect = dialect;
        this.table = table;
        this.holders = table + "_holders";
        String now = dialect.now();
        this.liveHoldersOfKey = "SELECT " + COLUMNS + " FROM " + holders + " WHERE lock_key = ? AND expires_at > ?";
        this.anyLiveHolderOfKey = "SELECT " + COLUMNS + " FROM " + holders + " WHERE lock_key = ? AND expires_at > "
                + now;
        this.deleteHolder = "DELETE FROM " + holders + " WHERE lock_key = ? AND owner_token = ? AND expires_at > " + now
                + unflushed;
        this.abort = "UPDATE " + holders + " SET status = 'ABORT' WHERE lock_key = ? AND expires_at > " + now;
        this.listLive = "SELECT " + COLUMNS + " FROM " + holders + " WHERE expires_at > " + now;
        this.purge = "DELETE FROM " + holders + " WHERE expires_at <= " + now;
    }

    /**
     * Removes {@code handle}'s holder if it is live. The key row keeps its mark and lease: the next holder of a
     * compatible mode joins it in one statement, and a writer takes it over once no holder is live. Runs outside a
     * transaction.
     */
    boolean release(Connection c, LockHandle handle) throws SQLException {
        try (PreparedStatement delete = c.prepareStatement(deleteHolder)) {
            delete.setString(1, handle.key().storageKey());
            delete.setString(2, handle.ownerToken());
            return delete.executeUpdate() > 0;
        }
    }

    /**
     * Renews the holders among {@code handles} that are live, and the key rows' leases with them; the answer has
     * every handle given, {@link HoldState#LOST} for those not found. Runs in the caller's transaction.
     */
    Map<LockHandle, HoldState> renew(Connection c, List<LockHandle> handles, Duration lease, long timeoutMillis)
            throws SQLException {
        int n = JdbcRows.paddedSize(handles.size());
        String now = dialect.now();
        // the key rows first, as every transaction here takes them, and only those with one of these holders live:
        // a row whose holders are all gone is left to run out (or to a writer's take-over)
        try (PreparedStatement rows = JdbcRows.prepare(c, "UPDATE " + table + " t SET expires_at = GREATEST("
                + "expires_at, " + now + " + ?), last_modified = " + now + " WHERE owner_token IN " + MARKS
                + " AND lock_key IN (" + marks(n) + ") AND EXISTS (SELECT 1 FROM " + holders + " h WHERE "
                + "h.lock_key = t.lock_key AND h.owner_token IN (" + marks(n) + ") AND h.expires_at > " + now + ")",
                timeoutMillis)) {
            rows.setLong(1, ROW_LEASES_PER_HOLDER_LEASE * lease.toMillis());
            JdbcRows.bindBatch(rows, 2, handles, n);
            rows.executeUpdate();
        }
        try (PreparedStatement renew = JdbcRows.prepare(c, "UPDATE " + holders + " SET expires_at = " + now
                + " + ? WHERE lock_key IN (" + marks(n) + ") AND owner_token IN (" + marks(n) + ") AND expires_at > "
                + now, timeoutMillis)) {
            renew.setLong(1, lease.toMillis());
            JdbcRows.bindBatch(renew, 2, handles, n);
            renew.executeUpdate();
        }
        return states(c, handles, timeoutMillis);
    }

    /** Whether each of {@code handles} is a live holder, and whether an abort was asked of it. */
    Map<LockHandle, HoldState> states(Connection c, List<LockHandle> handles, long timeoutMillis) throws SQLException {
        int n = JdbcRows.paddedSize(handles.size());
        try (PreparedStatement states = JdbcRows.prepare(c, "SELECT owner_token, status FROM " + holders
                + " WHERE lock_key IN (" + marks(n) + ") AND owner_token IN (" + marks(n) + ") AND expires_at > "
                + dialect.now(), timeoutMillis)) {
            JdbcRows.bindBatch(states, 1, handles, n);
            return JdbcRows.answers(handles, states);
        }
    }

    /** Marks every live holder of {@code key}; {@code true} if there was one. */
    boolean markAbort(Connection c, LockKey key) throws SQLException {
        try (PreparedStatement mark = c.prepareStatement(abort)) {
            mark.setString(1, key.storageKey());
            return mark.executeUpdate() > 0;
        }
    }

    /** A live holder of {@code key}, if any. */
    Optional<LockRecord> readAny(Connection c, LockKey key) throws SQLException {
        try (PreparedStatement read = c.prepareStatement(anyLiveHolderOfKey)) {
            read.setString(1, key.storageKey());
            try (ResultSet rs = read.executeQuery()) {
                return rs.next() ? Optional.of(toRecord(rs, key)) : Optional.empty();
            }
        }
    }

    /** Every holder row of {@code key}, expired ones included until purged. */
    List<LockRecord> inspect(Connection c, LockKey key) throws SQLException {
        return live(c, key, Long.MIN_VALUE);
    }

    List<LockRecord> list(Connection c, long timeoutMillis) throws SQLException {
        try (PreparedStatement list = JdbcRows.prepare(c, listLive, timeoutMillis); ResultSet rs = list.executeQuery()) {
            List<LockRecord> records = new ArrayList<>();
            while (rs.next()) {
                records.add(toRecord(rs, null));
            }
            return records;
        }
    }

    /** Deletes expired holders: their lease has ended, and the key's fencing counter lives in the key row. */
    int purge(Connection c, long timeoutMillis) throws SQLException {
        try (PreparedStatement delete = JdbcRows.prepare(c, purge, timeoutMillis)) {
            return delete.executeUpdate();
        }
    }

    /** The holders of {@code key} whose lease ends after {@code now} (the database's clock, ms). */
    List<LockRecord> live(Connection c, LockKey key, long now) throws SQLException {
        try (PreparedStatement read = c.prepareStatement(liveHoldersOfKey)) {
            read.setString(1, key.storageKey());
            read.setLong(2, now);
            try (ResultSet rs = read.executeQuery()) {
                List<LockRecord> live = new ArrayList<>();
                while (rs.next()) {
                    live.add(toRecord(rs, key));
                }
                return live;
            }
        }
    }

    private static LockRecord toRecord(ResultSet rs, LockKey key) throws SQLException {
        LockRecord record = JdbcRows.toRecord(rs, key);
        return new LockRecord(record.handle(), record.nodeId(), record.threadName(), record.lockTime(),
                record.expirationTime(), record.status(), record.fencingToken(), Admission.modeOf(rs.getString(9)),
                Admission.permitsOf(rs.getString(9)));
    }

    private static String marks(int n) {
        return JdbcRows.marks(n);
    }
}
