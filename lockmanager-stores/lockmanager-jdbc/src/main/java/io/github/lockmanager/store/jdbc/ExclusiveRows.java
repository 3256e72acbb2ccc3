package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

/**
 * Exclusive holders on the lock table. An acquisition: the dialect's one atomic statement (insert, take over a free or expired
 * row, or the predecessor's in a hand-off), then, when it did not say who holds the key, a read naming the holder;
 * a row marked for holders in other modes is taken over once none of them is live.
 */
final class ExclusiveRows {
    private ExclusiveRows() {
    }

    /**
     * @param announcing whether releases are announced (PostgreSQL): the grant then clears the row's waiter mark
     */
    static AcquireResult acquire(JdbcStatements sql, Connection c, LockRequest request, Duration lease,
                                 boolean announcing) throws SQLException {
        LockHandle handle = request.handle();
        Optional<LockRecord> taken = Optional.empty();
        LockHandle predecessor = request.predecessor();
        try (PreparedStatement acquire = c.prepareStatement(predecessor != null ? sql.handOff
                : announcing ? sql.acquireClearingWaiters : sql.acquire)) {
            acquire.setString(1, handle.key().storageKey());
            acquire.setString(2, handle.ownerToken());
            acquire.setString(3, request.nodeId());
            String threadName = JdbcRows.storableThreadName(request.threadName());
            acquire.setString(4, threadName);
            acquire.setLong(5, lease.toMillis());
            for (int p = 1; predecessor != null && p <= sql.handOffPredecessors; p++) {
                acquire.setString(JdbcStatements.ACQUIRE_PARAMETERS + p, predecessor.ownerToken());
            }
            SqlDialect.AcquireAnswer answer = sql.dialect.acquireAnswer();
            if (answer == SqlDialect.AcquireAnswer.NOTHING) {
                acquire.executeUpdate();
            } else {
                try (ResultSet rs = acquire.executeQuery()) {
                    taken = !rs.next() ? Optional.empty() : Optional.of(answer == SqlDialect.AcquireAnswer.GRANT
                            ? JdbcRows.granted(request, threadName, lease, rs) : JdbcRows.toRecord(rs, handle.key()));
                }
            }
        } catch (SQLException e) {
            // a unique violation means another node inserted the row first: it holds the key
            if (!SqlFailures.isUniqueViolation(e)) {
                throw e;
            }
        }
        if (taken.isPresent() && !SharedHolders.isMark(taken.get().ownerToken())) {
            return AcquireResult.fromRecord(handle, taken.get());
        }
        // name the holder: possibly this very acquisition, when an earlier attempt applied after all
        Optional<LockRecord> holder = JdbcRows.queryOne(c, sql.readHeld, handle.key());
        if (holder.isEmpty() || !SharedHolders.isMark(holder.get().ownerToken())) {
            return AcquireResult.fromRecord(handle, holder.orElse(null));
        }
        // a row marked for holders in other modes: refused while one of them is live (looked at without locking the
        // row, which would hold up its readers), taken over when none is
        holder = sql.holderReads.readAny(c, handle.key());
        if (holder.isPresent()) {
            return AcquireResult.heldBy(holder.get());
        }
        AcquireResult takenOver = JdbcRows.inTransaction(c, () -> sql.shared.takeOver(c, request, lease));
        if (takenOver != null) {
            return takenOver;
        }
        // another writer took the row over meanwhile: name it, as any refusal does
        holder = JdbcRows.queryOne(c, sql.readHeld, handle.key()).filter(row -> !SharedHolders.isMark(row.ownerToken()));
        return AcquireResult.fromRecord(handle, holder.orElse(null));
    }

    /**
     * Frees the key's row if it is {@code handle}'s and live (announcing the release to marked waiters where
     * {@code announcing}); else the handle may be a holder in another mode, or no longer hold.
     */
    static boolean release(JdbcStatements sql, Connection c, LockHandle handle, boolean announcing)
            throws SQLException {
        try (PreparedStatement release = c.prepareStatement(announcing ? sql.releaseAnnouncing : sql.releaseAlone)) {
            release.setString(1, handle.key().storageKey());
            release.setString(2, handle.ownerToken());
            if (announcing ? released(release) : release.executeUpdate() == 1) {
                return true;
            }
        }
        // a holder in another mode, or a lock no longer ours
        return sql.holderReads.release(c, handle);
    }

    private static boolean released(PreparedStatement releaseAnnouncing) throws SQLException {
        try (ResultSet rs = releaseAnnouncing.executeQuery()) {
            return rs.next();
        }
    }
}
