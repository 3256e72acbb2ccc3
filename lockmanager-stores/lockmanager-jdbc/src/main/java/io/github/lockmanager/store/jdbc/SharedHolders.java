package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.spi.AcquireResult;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The holders of keys taken in a mode other than exclusive, in the holders table ({@code <table>_holders}): a row
 * per holder with its own lease. While a key has such holders, its row in the lock table carries the owner token
 * {@value #SHARED_OWNER} and the latest of their leases, so that the exclusive acquire statement, which takes a
 * row only when it is free or expired, needs no change and no second round trip. Every change here runs in one
 * transaction that first locks the key's row ({@code SELECT … FOR UPDATE}), so that the decision "no conflicting
 * holder is live" and the write that follows it cannot interleave with another acquisition of the key. Locks are
 * taken lock table first, holders table second, everywhere, so that two such transactions cannot deadlock.
 */
final class SharedHolders {
    /** The owner token of a key row whose holders are in the holders table; no acquisition's token starts so. */
    static final String SHARED_OWNER = "~shared";
    /** How much later than the key row's the holders' renewal may read the database clock, at the most. */
    private static final long CLOCK_READS_APART_MILLIS = 1000;
    /** A holder's columns: a record's, then its mode. */
    private static final String COLUMNS = SqlDialect.COLUMNS + ", lock_mode";

    private final SqlDialect dialect;
    private final String table;
    private final String holders;
    private final String lockRow;
    private final String insertFreeRow;
    private final String liveHoldersOfKey;
    private final String anyLiveHolderOfKey;
    private final String markShared;
    private final String insertHolder;
    private final String deleteHolder;
    private final String deleteAnyOwn;
    private final String readRow;
    private final String extendJoined;
    private final String anyLive;
    private final String latestLease;
    private final String freeRow;
    private final String setRowLease;
    private final String abort;
    private final String listLive;
    private final String purge;

    SharedHolders(SqlDialect dialect, String table) {
        this.dialect = dialect;
        this.table = table;
        this.holders = table + "_holders";
        String now = dialect.now();
        this.lockRow = "SELECT owner_token, expires_at, fencing_token, " + now + " FROM " + table
                + " WHERE lock_key = ? FOR UPDATE";
        this.insertFreeRow = "INSERT INTO " + table + " (" + SqlDialect.COLUMNS + ", last_modified) VALUES (?, NULL, "
                + "NULL, NULL, 'FREE', " + now + ", " + now + ", " + now + " * 1000, " + now + ")";
        this.liveHoldersOfKey = "SELECT " + COLUMNS + " FROM " + holders + " WHERE lock_key = ? AND expires_at > ?";
        this.anyLiveHolderOfKey = "SELECT " + COLUMNS + " FROM " + holders + " WHERE lock_key = ? AND expires_at > "
                + now;
        this.markShared = "UPDATE " + table + " SET owner_token = '" + SHARED_OWNER + "', node_id = ?, thread_name = ?, "
                + "status = 'RUNNING', lock_time = ?, expires_at = ?, fencing_token = ?, last_modified = ? WHERE lock_key = ?";
        this.insertHolder = "INSERT INTO " + holders + " (" + COLUMNS + ") VALUES (?, ?, ?, ?, 'RUNNING', ?, ?, ?, ?)";
        this.deleteHolder = "DELETE FROM " + holders + " WHERE lock_key = ? AND owner_token = ? AND expires_at > " + now;
        this.deleteAnyOwn = "DELETE FROM " + holders + " WHERE lock_key = ? AND owner_token = ?";
        this.readRow = lockRow.replace(" FOR UPDATE", "");
        this.extendJoined = "UPDATE " + table + " SET expires_at = GREATEST(expires_at, " + now + " + ?), last_modified = "
                + now + " WHERE lock_key = ? AND owner_token = '" + SHARED_OWNER + "' AND fencing_token = ? AND "
                + "expires_at > " + now;
        this.anyLive = "SELECT COUNT(*) FROM " + holders + " WHERE lock_key = ? AND expires_at > " + now;
        this.latestLease = "SELECT MAX(expires_at) FROM " + holders + " WHERE lock_key = ? AND expires_at > ?";
        this.freeRow = "UPDATE " + table + " SET owner_token = NULL, status = 'FREE', expires_at = ?, last_modified = ? "
                + "WHERE lock_key = ? AND owner_token = '" + SHARED_OWNER + "'";
        this.setRowLease = "UPDATE " + table + " SET expires_at = ?, last_modified = ? WHERE lock_key = ? "
                + "AND owner_token = '" + SHARED_OWNER + "'";
        this.abort = "UPDATE " + holders + " SET status = 'ABORT' WHERE lock_key = ? AND expires_at > " + now;
        this.listLive = "SELECT " + COLUMNS + " FROM " + holders + " WHERE expires_at > " + now;
        this.purge = "DELETE FROM " + holders + " WHERE expires_at <= " + now;
    }

    /**
     * Joins the holders of a key whose row is already marked shared, without holding the row's lock for the
     * decision, so that readers of one key do not queue for it: insert the holder, then extend the row's lease if
     * the row is still the marked row that was read (the one short write readers of a key take turns for), then look
     * for a live holder in a conflicting mode. A holder in a conflicting mode that joins at the same time either
     * sees this one or is seen by it, since each looks only after its own write to the row. The token is the row's:
     * above every earlier exclusive holder's, which is all a holder in these modes must be above. {@code null} when
     * the row is not marked shared, or stopped being so meanwhile: then the caller takes the row's lock.
     * Runs outside a transaction.
     */
    AcquireResult join(Connection c, LockRequest request, Duration lease) throws SQLException {
        LockHandle handle = request.handle();
        String key = handle.key().storageKey();
        KeyRow row = readRow(c, key);
        if (row == null || !SHARED_OWNER.equals(row.owner) || row.expiresAt <= row.now) {
            return null;
        }
        long expiresAt = row.now + lease.toMillis();
        String thread = JdbcLockStore.storableThreadName(request.threadName());
        try {
            insertHolder(c, request, thread, row.now, expiresAt, row.token);
        } catch (SQLException e) {
            if (!SqlFailures.isUniqueViolation(e)) {
                throw e;
            }
            // an earlier attempt of this very request did insert it: the tx path answers by the SPI's rule
            return null;
        }
        int extended;
        try (PreparedStatement extend = c.prepareStatement(extendJoined)) {
            extend.setLong(1, lease.toMillis());
            extend.setString(2, key);
            extend.setLong(3, row.token);
            extended = extend.executeUpdate();
        }
        if (extended == 0) {
            deleteOwn(c, handle);
            return null;
        }
        for (LockRecord holder : liveHolders(c, handle.key(), row.now)) {
            if (!holder.handle().equals(handle) && holder.mode().conflictsWith(request.mode())) {
                deleteOwn(c, handle);
                return AcquireResult.heldBy(holder);
            }
        }
        return AcquireResult.acquired(new LockRecord(handle, request.nodeId(), thread, Instant.ofEpochMilli(row.now),
                Instant.ofEpochMilli(expiresAt), LockStatus.RUNNING, row.token, request.mode()));
    }

    private void insertHolder(Connection c, LockRequest request, String thread, long now, long expiresAt, long token)
            throws SQLException {
        try (PreparedStatement insert = c.prepareStatement(insertHolder)) {
            insert.setString(1, request.key().storageKey());
            insert.setString(2, request.handle().ownerToken());
            insert.setString(3, request.nodeId());
            insert.setString(4, thread);
            insert.setLong(5, now);
            insert.setLong(6, expiresAt);
            insert.setLong(7, token);
            insert.setString(8, request.mode().name());
            insert.executeUpdate();
        }
    }

    private void deleteOwn(Connection c, LockHandle handle) throws SQLException {
        try (PreparedStatement delete = c.prepareStatement(deleteAnyOwn)) {
            delete.setString(1, handle.key().storageKey());
            delete.setString(2, handle.ownerToken());
            delete.executeUpdate();
        }
    }

    /**
     * Adds a holder for {@code request} unless a live holder of the key conflicts with its mode; {@code null} when the
     * key has no row yet (the caller creates one with {@link #createFreeRow} and asks again). Runs in the caller's
     * transaction.
     */
    AcquireResult acquire(Connection c, LockRequest request, Duration lease) throws SQLException {
        LockHandle handle = request.handle();
        String key = handle.key().storageKey();
        KeyRow row = lockRow(c, key);
        if (row == null) {
            return null;
        }
        if (row.owner != null && !SHARED_OWNER.equals(row.owner) && row.expiresAt > row.now) {
            return AcquireResult.heldBy(readExclusive(c, handle.key()));
        }
        for (LockRecord holder : liveHolders(c, handle.key(), row.now)) {
            // the SPI's rule for retried writes: our own record is ours, never "held by someone else"
            if (holder.handle().equals(handle)) {
                return AcquireResult.acquired(holder);
            }
            if (holder.mode().conflictsWith(request.mode())) {
                return AcquireResult.heldBy(holder);
            }
        }
        long expiresAt = row.now + lease.toMillis();
        long token = Math.max(row.token + 1, row.now * 1000);
        long rowLease = SHARED_OWNER.equals(row.owner) ? Math.max(row.expiresAt, expiresAt) : expiresAt;
        String thread = JdbcLockStore.storableThreadName(request.threadName());
        try (PreparedStatement mark = c.prepareStatement(markShared)) {
            mark.setString(1, request.nodeId());
            mark.setString(2, thread);
            mark.setLong(3, row.now);
            mark.setLong(4, rowLease);
            mark.setLong(5, token);
            mark.setLong(6, row.now);
            mark.setString(7, key);
            mark.executeUpdate();
        }
        insertHolder(c, request, thread, row.now, expiresAt, token);
        return AcquireResult.acquired(new LockRecord(handle, request.nodeId(), thread, Instant.ofEpochMilli(row.now),
                Instant.ofEpochMilli(expiresAt), LockStatus.RUNNING, token, request.mode()));
    }

    /** Inserts a free row for a key that has none; a row another node inserted first does as well. */
    void createFreeRow(Connection c, LockKey key) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement(insertFreeRow)) {
            insert.setString(1, key.storageKey());
            insert.executeUpdate();
        } catch (SQLException e) {
            if (!SqlFailures.isUniqueViolation(e)) {
                throw e;
            }
        }
    }

    /**
     * Removes {@code handle}'s holder if it is live. Only the holder that finds no live holder left after its own
     * is gone takes the row's lock, to move the row's lease to the latest of those that joined meanwhile or free the
     * row: readers leaving a key do not queue for it, and of two last ones leaving at once the later one looks
     * after both are gone. Runs outside a transaction; the last step in one of its own.
     */
    boolean release(Connection c, LockHandle handle) throws SQLException {
        String key = handle.key().storageKey();
        int removed;
        try (PreparedStatement delete = c.prepareStatement(deleteHolder)) {
            delete.setString(1, key);
            delete.setString(2, handle.ownerToken());
            removed = delete.executeUpdate();
        }
        if (removed == 0) {
            return false;
        }
        try (PreparedStatement live = c.prepareStatement(anyLive)) {
            live.setString(1, key);
            try (ResultSet rs = live.executeQuery()) {
                if (rs.next() && rs.getLong(1) > 0) {
                    return true;
                }
            }
        }
        JdbcLockStore.inTransaction(c, () -> {
            KeyRow row = lockRow(c, key);
            if (row == null || !SHARED_OWNER.equals(row.owner)) {
                return null;
            }
            long latest = 0;
            try (PreparedStatement max = c.prepareStatement(latestLease)) {
                max.setString(1, key);
                max.setLong(2, row.now);
                try (ResultSet rs = max.executeQuery()) {
                    if (rs.next()) {
                        latest = rs.getLong(1);
                    }
                }
            }
            try (PreparedStatement update = c.prepareStatement(latest > row.now ? setRowLease : freeRow)) {
                update.setLong(1, latest > row.now ? latest : row.now);
                update.setLong(2, row.now);
                update.setString(3, key);
                update.executeUpdate();
            }
            return null;
        });
        return true;
    }

    /**
     * Renews the holders among {@code handles} that are live, and the key rows' leases with them; the answer has
     * every handle given, {@link HoldState#LOST} for those not found. Runs in the caller's transaction.
     */
    Map<LockHandle, HoldState> renew(Connection c, List<LockHandle> handles, Duration lease, long timeoutMillis)
            throws SQLException {
        int n = JdbcLockStore.paddedSize(handles.size());
        String now = dialect.now();
        // the key rows first, as every transaction here takes them, and only those with one of these holders live:
        // a row lease moved past its last live holder's would keep writers out for nothing. The row's lease gets a
        // second more than the holders', which the next statement reads the clock for a moment later
        try (PreparedStatement rows = JdbcLockStore.prepare(c, "UPDATE " + table + " t SET expires_at = GREATEST("
                + "expires_at, " + now + " + ?), last_modified = " + now + " WHERE owner_token = '" + SHARED_OWNER
                + "' AND lock_key IN (" + marks(n) + ") AND EXISTS (SELECT 1 FROM " + holders + " h WHERE "
                + "h.lock_key = t.lock_key AND h.owner_token IN (" + marks(n) + ") AND h.expires_at > " + now + ")",
                timeoutMillis)) {
            rows.setLong(1, lease.toMillis() + CLOCK_READS_APART_MILLIS);
            JdbcLockStore.bindBatch(rows, 2, handles, n);
            rows.executeUpdate();
        }
        try (PreparedStatement renew = JdbcLockStore.prepare(c, "UPDATE " + holders + " SET expires_at = " + now
                + " + ? WHERE lock_key IN (" + marks(n) + ") AND owner_token IN (" + marks(n) + ") AND expires_at > "
                + now, timeoutMillis)) {
            renew.setLong(1, lease.toMillis());
            JdbcLockStore.bindBatch(renew, 2, handles, n);
            renew.executeUpdate();
        }
        return states(c, handles, timeoutMillis);
    }

    /** Whether each of {@code handles} is a live holder, and whether an abort was asked of it. */
    Map<LockHandle, HoldState> states(Connection c, List<LockHandle> handles, long timeoutMillis) throws SQLException {
        int n = JdbcLockStore.paddedSize(handles.size());
        try (PreparedStatement states = JdbcLockStore.prepare(c, "SELECT owner_token, status FROM " + holders
                + " WHERE lock_key IN (" + marks(n) + ") AND owner_token IN (" + marks(n) + ") AND expires_at > "
                + dialect.now(), timeoutMillis)) {
            JdbcLockStore.bindBatch(states, 1, handles, n);
            return JdbcLockStore.answers(handles, states);
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
        return liveHolders(c, key, Long.MIN_VALUE);
    }

    List<LockRecord> list(Connection c, long timeoutMillis) throws SQLException {
        try (PreparedStatement list = JdbcLockStore.prepare(c, listLive, timeoutMillis); ResultSet rs = list.executeQuery()) {
            List<LockRecord> records = new ArrayList<>();
            while (rs.next()) {
                records.add(toRecord(rs, null));
            }
            return records;
        }
    }

    /** Deletes expired holders: their lease has ended, and the key's fencing counter lives in the key row. */
    int purge(Connection c, long timeoutMillis) throws SQLException {
        try (PreparedStatement delete = JdbcLockStore.prepare(c, purge, timeoutMillis)) {
            return delete.executeUpdate();
        }
    }

    private record KeyRow(String owner, long expiresAt, long token, long now) {
    }

    private KeyRow lockRow(Connection c, String key) throws SQLException {
        return row(c, lockRow, key);
    }

    private KeyRow readRow(Connection c, String key) throws SQLException {
        return row(c, readRow, key);
    }

    private static KeyRow row(Connection c, String statement, String key) throws SQLException {
        try (PreparedStatement select = c.prepareStatement(statement)) {
            select.setString(1, key);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next() ? new KeyRow(rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)) : null;
            }
        }
    }

    private LockRecord readExclusive(Connection c, LockKey key) throws SQLException {
        try (PreparedStatement read = c.prepareStatement("SELECT " + SqlDialect.COLUMNS + " FROM " + table
                + " WHERE lock_key = ?")) {
            read.setString(1, key.storageKey());
            try (ResultSet rs = read.executeQuery()) {
                return rs.next() ? JdbcLockStore.toRecord(rs, key) : null;
            }
        }
    }

    private List<LockRecord> liveHolders(Connection c, LockKey key, long now) throws SQLException {
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
        LockRecord record = JdbcLockStore.toRecord(rs, key);
        return new LockRecord(record.handle(), record.nodeId(), record.threadName(), record.lockTime(),
                record.expirationTime(), record.status(), record.fencingToken(), LockMode.valueOf(rs.getString(9)));
    }

    private static String marks(int n) {
        return JdbcLockStore.marks(n);
    }
}
