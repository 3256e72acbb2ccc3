package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.store.support.ExclusiveOverMarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

/**
 * Exclusive holders on the lock table. An acquisition: the dialect's one atomic statement (insert, take over a free or expired
 * row, or the predecessor's in a hand-off), then, when it did not say who holds the key, a read naming the holder;
 * a row marked for holders in other modes is taken over once none of them is live, in the kit's order
 * ({@link ExclusiveOverMarks}).
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
        if (request.predecessor() != null) {
            return handOff(sql, c, request, lease);
        }
        return ExclusiveOverMarks.acquire(new ExclusiveOverMarks.Steps<Optional<LockRecord>, SQLException>() {
            @Override
            public AcquireResult writeIfFree() throws SQLException {
                Optional<LockRecord> taken = write(sql, c, request, lease, announcing);
                return taken.isPresent() && !SharedHolders.isMark(taken.get().ownerToken())
                        ? AcquireResult.fromRecord(handle, taken.get()) : null;
            }

            @Override
            public Optional<LockRecord> read() throws SQLException {
                return JdbcRows.queryOne(c, sql.readHeld, handle.key());
            }

            @Override
            public boolean isMark(Optional<LockRecord> row) {
                return row.isPresent() && SharedHolders.isMark(row.get().ownerToken());
            }

            /* looked at without locking the key's row, which would hold up its readers */
            @Override
            public Optional<LockRecord> liveHolderBehind(Optional<LockRecord> row) throws SQLException {
                return sql.holderReads.readAny(c, handle.key());
            }

            @Override
            public AcquireResult takeOver(Optional<LockRecord> row) throws SQLException {
                return JdbcRows.inTransaction(c, () -> sql.shared.takeOver(c, request, lease));
            }

            @Override
            public AcquireResult refusal(Optional<LockRecord> row) {
                return AcquireResult.fromRecord(handle, row.filter(r -> !SharedHolders.isMark(r.ownerToken()))
                        .orElse(null));
            }
        });
    }

    /**
     * A hand-off: the predecessor's row taken over in one statement if it is still the predecessor's, else refused
     * without a write, naming the key's live holder if it has one (SPI: owner-checked as a release is). Where the
     * statement does not answer with the grant, the row read after it tells, as it does for a write whose answer was
     * lost: ours, or someone else's.
     */
    private static AcquireResult handOff(JdbcStatements sql, Connection c, LockRequest request, Duration lease)
            throws SQLException {
        LockHandle handle = request.handle();
        String threadName = JdbcRows.storableThreadName(request.threadName());
        try (PreparedStatement handOff = c.prepareStatement(sql.handOff)) {
            handOff.setString(1, handle.ownerToken());
            handOff.setString(2, request.nodeId());
            handOff.setString(3, threadName);
            handOff.setLong(4, lease.toMillis());
            handOff.setString(5, handle.key().storageKey());
            handOff.setString(6, request.predecessor().ownerToken());
            if (sql.dialect.handOffAnswer() == SqlDialect.AcquireAnswer.GRANT) {
                try (ResultSet rs = handOff.executeQuery()) {
                    if (rs.next()) {
                        return AcquireResult.acquired(JdbcRows.granted(request, threadName, lease, rs));
                    }
                }
            } else {
                handOff.executeUpdate();
            }
        }
        Optional<LockRecord> row = JdbcRows.queryOne(c, sql.readHeld, handle.key());
        if (row.isPresent() && SharedHolders.isMark(row.get().ownerToken())) {
            return AcquireResult.heldBy(sql.holderReads.readAny(c, handle.key()).orElse(null));
        }
        return AcquireResult.fromRecord(handle, row.orElse(null));
    }

    /**
     * The dialect's one atomic statement: inserts the row, or takes over a free or expired one. The row as it left it
     * where the dialect returns it; empty where it does not, or when another node inserted the row first.
     */
    private static Optional<LockRecord> write(JdbcStatements sql, Connection c, LockRequest request, Duration lease,
                                              boolean announcing) throws SQLException {
        LockHandle handle = request.handle();
        try (PreparedStatement acquire = c.prepareStatement(announcing ? sql.acquireClearingWaiters : sql.acquire)) {
            acquire.setString(1, handle.key().storageKey());
            acquire.setString(2, handle.ownerToken());
            acquire.setString(3, request.nodeId());
            String threadName = JdbcRows.storableThreadName(request.threadName());
            acquire.setString(4, threadName);
            acquire.setLong(5, lease.toMillis());
            SqlDialect.AcquireAnswer answer = sql.dialect.acquireAnswer();
            if (answer == SqlDialect.AcquireAnswer.NOTHING) {
                acquire.executeUpdate();
                return Optional.empty();
            }
            try (ResultSet rs = acquire.executeQuery()) {
                return !rs.next() ? Optional.empty() : Optional.of(answer == SqlDialect.AcquireAnswer.GRANT
                        ? JdbcRows.granted(request, threadName, lease, rs) : JdbcRows.toRecord(rs, handle.key()));
            }
        } catch (SQLException e) {
            // a unique violation means another node inserted the row first: it holds the key
            if (!SqlFailures.isUniqueViolation(e)) {
                throw e;
            }
            return Optional.empty();
        }
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
