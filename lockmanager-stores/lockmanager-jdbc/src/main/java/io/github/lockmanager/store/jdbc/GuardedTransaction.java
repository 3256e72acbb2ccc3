package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.GuardedHold;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.spi.LockHandle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The caller's transaction, guarded by a lock of a {@link JdbcLockStore} on the same database: made by
 * {@link JdbcLockStore#guard}. It holds the lock's row locked ({@code SELECT … FOR UPDATE}) from its start to the
 * transaction's end, so no other node can take the lock over before this transaction has committed or rolled back,
 * even when the lease runs out meanwhile: a contender waits for it or fails. Its commit checks first that the lease
 * is still running, so work is committed only under a lock that was this acquisition's the whole time; otherwise
 * the work is rolled back and nothing of it is visible to the next holder.
 *
 * <pre>{@code
 * try (LockResource held = locks.lock("order-123");
 *      Connection c = dataSource.getConnection()) {
 *     c.setAutoCommit(false);
 *     try (GuardedTransaction tx = store.guard(c, held)) {
 *         update(c, order);
 *         tx.commit();              // or tx.commitAndRelease(): the release is part of the commit
 *     }                             // not committed: rolled back, the lock kept
 * }                                 // the lock released, if still held
 * }</pre>
 *
 * <p>Round trips: {@link JdbcLockStore#guard} 1, {@link #commit()} and {@link #commitAndRelease()} 2 (a check, or
 * the release, then the commit). While the transaction is open the manager checks the lock for aborts but does not
 * renew it (see {@link GuardedHold}): end the transaction well inside the lease. An abort or a release of the
 * lock asked for meanwhile, from any node, waits for the transaction (the row is locked), as does the holder's
 * own {@code held.close()}: close the transaction first, as the example does by the order of its resources.
 *
 * <p>Commit and roll back through this object, not the connection: a commit of the connection itself skips the
 * lease check. Not thread-safe: it belongs to the thread that runs the transaction.
 */
public final class GuardedTransaction implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(GuardedTransaction.class);

    private final Connection connection;
    private final GuardedHold hold;
    private final String confirm;
    private final String release;
    private final String table;
    private boolean ended;

    private GuardedTransaction(Connection connection, GuardedHold hold, String confirm, String release, String table) {
        this.connection = connection;
        this.hold = hold;
        this.confirm = confirm;
        this.release = release;
        this.table = table;
    }

    /** See {@link JdbcLockStore#guard}. */
    static GuardedTransaction begin(Connection connection, LockResource held, String confirm, String release,
                                    String table) throws SQLException, LockLostException {
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("a guarded transaction needs a transaction: the connection is in "
                    + "auto-commit mode; call setAutoCommit(false) first");
        }
        LockMode mode = held.getLock().getMode();
        if (mode != LockMode.EXCLUSIVE) {
            throw new UnsupportedOperationException("a guarded transaction needs an exclusive lock, and lock '"
                    + held.getLock().getKey() + "' is held " + mode + ": shared holders exclude no one but writers, "
                    + "whose work they cannot keep out this way");
        }
        GuardedHold hold = held.guard();
        GuardedTransaction tx = new GuardedTransaction(connection, hold, confirm, release, table);
        try {
            tx.confirmRow();
        } catch (SQLException | LockLostException | RuntimeException e) {
            hold.close();
            throw e;
        }
        return tx;
    }

    /**
     * Commits the work if the lock is still this acquisition's, and keeps the lock (its hold stays with the caller).
     * Ends this transaction either way.
     *
     * @throws LockLostException if the lease ran out or the lock went to someone else: the work was rolled back
     * @throws SQLException      if the check or the commit failed: the work was rolled back, or, when the commit
     *                           itself failed without an answer, may have been committed, as with any commit
     */
    public void commit() throws SQLException, LockLostException {
        end();
        try {
            confirmRow();
            connection.commit();
        } catch (SQLException | LockLostException | RuntimeException e) {
            rollbackAfter(e);
            throw e;
        } finally {
            hold.close();
        }
    }

    /**
     * Commits the work together with the release of the lock (Alfresco's {@code commitLock}): if the commit
     * succeeds, the lock's row is free and this resource's hold is given back; if anything fails, the work is rolled
     * back and the lock released in a transaction of its own (Alfresco's {@code rollbackLock}). When the calling
     * thread holds the lock more than once, only the work is committed and the one hold given back: the lock stays
     * held for the others. Ends this transaction either way.
     *
     * @throws LockLostException if the lock was not this acquisition's any more: nothing was committed
     * @throws SQLException      if the release or the commit failed
     */
    public void commitAndRelease() throws SQLException, LockLostException {
        commitAndRelease(false);
    }

    /**
     * {@link #commitAndRelease()}, except that with {@code keepLockIfRolledBack} a failure keeps the lock held
     * exactly as it was, for the caller to retry the work under it or give it back.
     */
    public void commitAndRelease(boolean keepLockIfRolledBack) throws SQLException, LockLostException {
        end();
        try {
            hold.release(this::finish, keepLockIfRolledBack);
        } catch (LockLostException e) {
            // the lock ended on this node before the work could: finish never ran
            rollbackAfter(e);
            throw e;
        } catch (RowLost e) {
            throw lost(e.handle, "the work was rolled back" + (keepLockIfRolledBack ? "" : " and the lock given back"));
        }
    }

    /** The guard's end of the work: release (last hold) or check, then commit; rolled back before it throws. */
    private void finish(LockHandle handle, boolean lastHold) throws SQLException {
        try {
            boolean ours;
            if (lastHold) {
                try (PreparedStatement free = connection.prepareStatement(release)) {
                    bind(free, handle);
                    ours = free.executeUpdate() == 1;
                }
            } else {
                ours = rowIsOurs(handle);
            }
            if (!ours) {
                throw new RowLost(handle);
            }
            connection.commit();
        } catch (SQLException | RuntimeException e) {
            // before the hold is settled: a release of the record by the manager would wait for this row lock
            rollbackAfter(e);
            throw e;
        }
    }

    /** Rolls the work back, unless it has ended; ends the guard and keeps the lock held. Never throws. */
    @Override
    public void close() {
        if (!ended) {
            end();
            try {
                if (!connection.isClosed()) {
                    connection.rollback();
                }
            } catch (SQLException e) {
                log.warn("Could not roll back the transaction guarded by lock {} in table {}: {}. The database rolls it "
                        + "back when the connection closes", hold.handle().key().name(), table, e.toString());
            }
        }
        hold.close();
    }

    private void end() {
        if (ended) {
            throw new IllegalStateException("this guarded transaction has ended");
        }
        ended = true;
    }

    private void confirmRow() throws SQLException, LockLostException {
        if (!rowIsOurs(hold.handle())) {
            throw lost(hold.handle(), "the work must be rolled back");
        }
    }

    /** Locks the lock's row for this transaction; {@code true} if it is this acquisition's and its lease runs. */
    private boolean rowIsOurs(LockHandle handle) throws SQLException {
        try (PreparedStatement check = connection.prepareStatement(confirm)) {
            bind(check, handle);
            try (ResultSet rs = check.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static void bind(PreparedStatement statement, LockHandle handle) throws SQLException {
        statement.setString(1, handle.key().storageKey());
        statement.setString(2, handle.ownerToken());
    }

    private LockLostException lost(LockHandle handle, String consequence) {
        return new LockLostException("lock '" + handle.key().name() + "' (" + handle.key().level() + ") is no longer "
                + "this acquisition's in table " + table + ": its lease ran out or another holder has it; " + consequence);
    }

    private void rollbackAfter(Exception cause) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    /** The lock's row was not this acquisition's when the guard's end of the work came. */
    private static final class RowLost extends SQLException {
        private static final long serialVersionUID = 1L;
        private final transient LockHandle handle;

        RowLost(LockHandle handle) {
            super("lock row not owned");
            this.handle = handle;
        }
    }
}
