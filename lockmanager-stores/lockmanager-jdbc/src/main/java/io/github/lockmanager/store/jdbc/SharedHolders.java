package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.store.support.Admission;
import io.github.lockmanager.store.support.FencingEpoch;
import io.github.lockmanager.store.support.HolderMarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The holders of keys taken in a mode other than exclusive, in the holders table ({@code <table>_holders}): a row
 * per holder with its own lease. While a key has such holders, its row in the lock table is marked: its owner token is
 * {@value #SHARED_OWNER} when its holders may be shared or intention-shared, {@value #INTENT_OWNER} when they may be
 * intention-exclusive or intention-shared, so that every holder a mark admits is compatible with every other, and
 * its lease is twice the holders' (renewed with them), so that the exclusive acquire statement, which takes a row only
 * when it is free or expired, needs no change and no second round trip.
 * <p>
 * A holder joins a marked row in one statement where the database can lock the row for sharing and return what it
 * inserted ({@link SqlDialect#shareRows()}): readers of one key do not queue for each other, and a holder of a
 * compatible mode needs no look at the others. Everything else (a first holder, a mark of the other kind, a row whose
 * lease would not cover the holder) runs in one transaction that first locks the key's row ({@code SELECT … FOR
 * UPDATE}), so that the decision "no conflicting holder is live" and the write that follows it cannot interleave with
 * another acquisition of the key. Locks are taken lock table first, holders table second, everywhere, so that two
 * such transactions cannot deadlock.
 * <p>
 * A mark stays when its last holder leaves, so that the next reader joins in one statement again; an exclusive
 * acquisition finding a marked row without live holders takes it over ({@link #takeOver}).
 */
final class SharedHolders {
    /** The owner token of a key row whose holders are shared or intention-shared ({@link HolderMarks}). */
    static final String SHARED_OWNER = HolderMarks.SHARED;
    /** The owner token of a key row whose holders are intention-exclusive or intention-shared. */
    static final String INTENT_OWNER = HolderMarks.INTENT;

    /** The marks in SQL, for {@code owner_token IN} and {@code NOT IN}. */
    static final String MARKS = HolderReads.MARKS;
    private static final int ROW_LEASES_PER_HOLDER_LEASE = HolderReads.ROW_LEASES_PER_HOLDER_LEASE;
    /** How far apart two readings of the database clock in one statement may be, at the most. */
    private static final long CLOCK_READS_APART_MILLIS = 1000;
    private static final String COLUMNS = HolderReads.COLUMNS;

    private final SqlDialect dialect;
    private final String table;
    private final String holders;
    private final HolderReads reads;
    private final String lockRow;
    private final String insertFreeRow;
    /** Writes a key row whose lock the transaction holds: a mark, or a writer taking a marked row over. */
    private final String setRow;
    /** The one-statement join, {@code null} where the database has none. */
    private final String joinMarked;
    private final String insertHolder;

    SharedHolders(SqlDialect dialect, String table, HolderReads reads) {
        this.dialect = dialect;
        this.reads = reads;
        this.table = table;
        this.holders = table + "_holders";
        String now = dialect.now();
        this.lockRow = "SELECT owner_token, expires_at, fencing_token, " + now + " FROM " + table
                + " WHERE lock_key = ? FOR UPDATE";
        this.insertFreeRow = "INSERT INTO " + table + " (" + SqlDialect.COLUMNS + ", last_modified) VALUES (?, NULL, "
                + "NULL, NULL, 'FREE', " + now + ", " + now + ", " + now + " * " + FencingEpoch.TOKENS_PER_MILLISECOND + ", " + now + ")";
        this.setRow = "UPDATE " + table + " SET owner_token = ?, node_id = ?, thread_name = ?, status = 'RUNNING', "
                + "lock_time = ?, expires_at = ?, fencing_token = ?, last_modified = ? WHERE lock_key = ?";
        this.insertHolder = "INSERT INTO " + holders + " (" + COLUMNS + ") VALUES (?, ?, ?, ?, 'RUNNING', ?, ?, ?, ?)";
        this.joinMarked = !dialect.capabilities().sharedRowLocks() ? null : "INSERT INTO " + holders + " (" + COLUMNS + ") "
                + "SELECT lock_key, ?, ?, ?, 'RUNNING', " + now + ", " + now + " + ?, fencing_token, ? FROM " + table
                + " WHERE lock_key = ? AND owner_token IN (?, ?) AND expires_at >= " + now + " + ? "
                + dialect.shareRows() + " RETURNING lock_time, expires_at, fencing_token";
    }

    /**
     * Takes {@code request}'s holder place: joins a key already marked in one statement, else marks the key's row
     * (creating it when absent) and joins, in a transaction.
     *
     * @throws SQLException also when the key's row was deleted while it was taken (a serialization failure, retried)
     */
    AcquireResult take(Connection c, LockRequest request, Duration lease) throws SQLException {
        AcquireResult result = join(c, request, lease);
        if (result != null) {
            return result;
        }
        result = JdbcRows.inTransaction(c, () -> acquire(c, request, lease));
        if (result == null) {
            createFreeRow(c, request.handle().key());
            result = JdbcRows.inTransaction(c, () -> acquire(c, request, lease));
        }
        if (result == null) {
            throw new SQLException("the row of lock '" + request.handle().key().name() + "' was deleted while it was "
                    + "being taken", "40001");
        }
        return result;
    }

    /**
     * Joins the holders of a key whose row carries a mark that admits {@code request}'s mode and a lease that covers
     * the holder's, in one statement that locks the row for sharing while it inserts the holder: a mark is changed or
     * removed only under the row's exclusive lock, so the mark read is the row's until the holder is in. The token is
     * the row's: above every earlier exclusive holder's and every holder's of the other mark, the acquisitions this
     * one conflicts with. {@code null} when the row does not qualify, or where the database cannot join so: then the
     * caller takes the row's lock. Runs outside a transaction.
     */
    AcquireResult join(Connection c, LockRequest request, Duration lease) throws SQLException {
        if (joinMarked == null || request.mode() == LockMode.PERMIT) {
            // a permit holder joins only after counting the others, under the row's lock
            return null;
        }
        LockHandle handle = request.handle();
        String thread = JdbcRows.storableThreadName(request.threadName());
        String[] marks = marksAdmitting(request.mode());
        try (PreparedStatement join = c.prepareStatement(joinMarked)) {
            join.setString(1, handle.ownerToken());
            join.setString(2, request.nodeId());
            join.setString(3, thread);
            join.setLong(4, lease.toMillis());
            join.setString(5, request.mode().name());
            join.setString(6, handle.key().storageKey());
            join.setString(7, marks[0]);
            join.setString(8, marks[1]);
            join.setLong(9, lease.toMillis() + CLOCK_READS_APART_MILLIS);
            try (ResultSet rs = join.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                return AcquireResult.acquired(new LockRecord(handle, request.nodeId(), thread,
                        Instant.ofEpochMilli(rs.getLong(1)), Instant.ofEpochMilli(rs.getLong(2)), LockStatus.RUNNING,
                        rs.getLong(3), request.mode()));
            }
        } catch (SQLException e) {
            if (!SqlFailures.isUniqueViolation(e)) {
                throw e;
            }
            // an earlier attempt of this very request did insert it: the transaction answers by the SPI's rule
            return null;
        }
    }

    /** The marks of a key row whose holders a holder in {@code mode} may join; twice the one when there is one. */
    private static String[] marksAdmitting(LockMode mode) {
        return switch (mode) {
            case SHARED -> new String[] {SHARED_OWNER, SHARED_OWNER};
            case INTENT_EXCLUSIVE -> new String[] {INTENT_OWNER, INTENT_OWNER};
            case INTENT_SHARED -> new String[] {SHARED_OWNER, INTENT_OWNER};
            case EXCLUSIVE, PERMIT -> throw new IllegalArgumentException(mode + " holders never join in one statement");
        };
    }

    /** The mark a key row gets for a holder in {@code mode}; an intention-shared holder keeps the row's. */
    private static String markFor(LockMode mode, String current) {
        return switch (mode) {
            case SHARED -> SHARED_OWNER;
            case INTENT_EXCLUSIVE -> INTENT_OWNER;
            case INTENT_SHARED -> SHARED_OWNER.equals(current) || INTENT_OWNER.equals(current) ? current : SHARED_OWNER;
            case PERMIT -> HolderMarks.PERMIT;
            case EXCLUSIVE -> throw new IllegalArgumentException("an exclusive lock has no holder row");
        };
    }

    static boolean isMark(String owner) {
        return HolderMarks.isMark(owner);
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
            insert.setString(8, request.mode().text(request.permits()));
            insert.executeUpdate();
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
        if (row.owner != null && !isMark(row.owner) && row.expiresAt > row.now) {
            return AcquireResult.heldBy(readExclusive(c, handle.key()));
        }
        Admission admission = Admission.of(request);
        for (LockRecord holder : reads.live(c, handle.key(), row.now)) {
            // the SPI's rule for retried writes: our own record is ours, never "held by someone else"
            if (holder.handle().equals(handle)) {
                return AcquireResult.acquired(holder);
            }
            if (admission.blockedBy(holder)) {
                return AcquireResult.heldBy(holder);
            }
        }
        if (admission.full()) {
            return AcquireResult.heldBy(admission.permitHolder());
        }
        long expiresAt = row.now + lease.toMillis();
        long token = row.nextToken();
        long rowLease = row.now + ROW_LEASES_PER_HOLDER_LEASE * lease.toMillis();
        if (isMark(row.owner)) {
            rowLease = Math.max(row.expiresAt, rowLease);
        }
        String thread = JdbcRows.storableThreadName(request.threadName());
        writeRow(c, markFor(request.mode(), row.owner), request, thread, row.now, rowLease, token);
        insertHolder(c, request, thread, row.now, expiresAt, token);
        return AcquireResult.acquired(new LockRecord(handle, request.nodeId(), thread, Instant.ofEpochMilli(row.now),
                Instant.ofEpochMilli(expiresAt), LockStatus.RUNNING, token, request.mode(), request.permits()));
    }

    /**
     * Takes a marked key row for an exclusive {@code request} when none of its holders is live any more: they all
     * left (a mark stays after its last holder), or their node crashed, whose holders would otherwise keep writers
     * out until the row's lease ran out. {@code null} when the row is not marked, else the acquisition or a live
     * holder in the way. Runs in the caller's transaction.
     */
    AcquireResult takeOver(Connection c, LockRequest request, Duration lease) throws SQLException {
        LockHandle handle = request.handle();
        KeyRow row = lockRow(c, handle.key().storageKey());
        if (row == null || !isMark(row.owner)) {
            return null;
        }
        List<LockRecord> live = reads.live(c, handle.key(), row.now);
        if (!live.isEmpty()) {
            return AcquireResult.heldBy(live.get(0));
        }
        long expiresAt = row.now + lease.toMillis();
        long token = row.nextToken();
        String thread = JdbcRows.storableThreadName(request.threadName());
        writeRow(c, handle.ownerToken(), request, thread, row.now, expiresAt, token);
        return AcquireResult.acquired(new LockRecord(handle, request.nodeId(), thread, Instant.ofEpochMilli(row.now),
                Instant.ofEpochMilli(expiresAt), LockStatus.RUNNING, token));
    }

    private void writeRow(Connection c, String owner, LockRequest request, String thread, long now, long expiresAt,
                          long token) throws SQLException {
        try (PreparedStatement write = c.prepareStatement(setRow)) {
            write.setString(1, owner);
            write.setString(2, request.nodeId());
            write.setString(3, thread);
            write.setLong(4, now);
            write.setLong(5, expiresAt);
            write.setLong(6, token);
            write.setLong(7, now);
            write.setString(8, request.key().storageKey());
            write.executeUpdate();
        }
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

    private record KeyRow(String owner, long expiresAt, long token, long now) {
        /** The token of an acquisition that takes or marks this row: the lock table's rule (see {@link SqlDialect}). */
        long nextToken() {
            return FencingEpoch.next(token, now);
        }
    }

    private KeyRow lockRow(Connection c, String key) throws SQLException {
        return row(c, lockRow, key);
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
                return rs.next() ? JdbcRows.toRecord(rs, key) : null;
            }
        }
    }
}
