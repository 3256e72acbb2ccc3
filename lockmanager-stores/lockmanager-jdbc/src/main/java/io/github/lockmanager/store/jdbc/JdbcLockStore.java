package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.support.ReleaseWaiters;
import io.github.lockmanager.store.support.HolderRegistry;
import io.github.lockmanager.store.support.RetryPolicy;
import io.github.lockmanager.store.support.StoreBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Lock records in a relational database table, with leases judged by the database's clock: nodes whose clocks
 * disagree still exclude each other. PostgreSQL, MariaDB, MySQL 8 and H2 are supported, picked from the
 * driver's {@code DatabaseMetaData}; any other database fails {@link #initialize()}.
 *
 * <p>The table is created by {@link #initialize()} when absent, from the DDL file shipped for each database in
 * this jar ({@code io/github/lockmanager/store/jdbc/postgresql.sql}, {@code mariadb.sql}, {@code mysql.sql},
 * {@code h2.sql}), which DBAs may run themselves; an existing table's key column is checked, and one that would
 * merge distinct keys is refused. Columns: {@code lock_key} (the level/farm/client-prefixed key, primary key,
 * compared byte-wise), {@code owner_token} (null when free), {@code node_id}, {@code thread_name},
 * {@code status}, {@code lock_time}, {@code expires_at}, {@code fencing_token} and {@code last_modified} (epoch
 * ms of the database clock). A released row is kept as free, and deleted by {@link #purgeIdleRecords()} once it
 * has been idle for the {@linkplain Builder#idleRecordRetention retention}: the table holds the keys in use.
 *
 * <p>Round trips: acquire 1 on PostgreSQL and MariaDB 10.5+ (whose upsert returns the row; a refusal on PostgreSQL
 * reads the holder's row too), 2 on MySQL and H2 (the atomic statement, then a read of the row); renew 1
 * on PostgreSQL, 2 elsewhere in one transaction (update, then read which rows were renewed), per batch; check,
 * release, abort, isLocked 1; getLocks 2 (the lock table, then the holders table). Every call takes a connection
 * from the data source and returns it; no transaction is left open.
 *
 * <p>Every lock mode: a key taken shared, or as an intention of a hierarchical lock,
 * has a row per holder in {@code <table>_holders} (created with the lock table), and its row in the lock table is
 * marked as held by them until the last one's lease ends, so exclusive acquisitions cost what they did
 * ({@link SharedHolders}). Such a holder costs more: joining a key already marked 4 statements, else a transaction
 * of 4 (lock the key's row, read its live holders, mark the row, insert the holder; a key without a row first gets
 * one); release 2 statements (delete the holder, count those left: the store remembers which of its handles are
 * holders, so the lock table is not asked), and a transaction of 3 for the last holder out; renew and check of a
 * batch of them one more transaction of 3 or one more statement.
 *
 * <p>Every call, its retries included, ends within the {@linkplain Builder#operationTimeout operation timeout}
 * once it holds a connection: each statement runs with the remaining time as the connection's network timeout, so
 * a network that drops packets cannot block a caller for longer, and statements over many rows (renew, check,
 * list, purge) also as their query timeout, which the server enforces without breaking the connection. Waiting for a
 * connection is the pool's business: keep the pool's connection timeout (HikariCP {@code connectionTimeout},
 * the driver's {@code connectTimeout}/{@code loginTimeout}) under the operation timeout. A connection the server
 * dropped (restart, {@code pg_terminate_backend}, a killed MariaDB thread) is retried at once on the next one,
 * so a pool that does not test its connections cannot cost a lock. Thread-safe.
 */
public final class JdbcLockStore implements LockStore {
    private static final Logger log = LoggerFactory.getLogger(JdbcLockStore.class);
    private static final Pattern TABLE_NAME = Pattern.compile("([A-Za-z_][A-Za-z0-9_]{0,62}\\.)?[A-Za-z_][A-Za-z0-9_]{0,54}");

    private final DataSource dataSource;
    private final String table;
    private final Duration operationTimeout;
    private final Duration idleRecordRetention;
    private final RetryPolicy retries;
    private final boolean durableReleases;
    private volatile JdbcStatements statements;

    /**
     * The live acquisitions of this store in modes other than exclusive, so that their release goes straight to the
     * holders table; forgotten on release and when found lost.
     */
    private final HolderRegistry<Boolean> holders = new HolderRegistry<>();

    /** Set by {@link #initialize()} where releases can be announced (PostgreSQL); {@code null} elsewhere. */
    private volatile PostgresReleaseListener releases;
    private final JdbcAccess calls;

    private JdbcLockStore(Builder builder) {
        this.dataSource = builder.dataSource;
        this.table = builder.table;
        this.operationTimeout = builder.getOperationTimeout();
        this.idleRecordRetention = builder.getIdleRecordRetention();
        this.retries = builder.getRetries();
        this.durableReleases = builder.durableReleases;
        this.calls = new JdbcAccess(dataSource, table, operationTimeout, retries);
    }

    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * Settings of a {@link JdbcLockStore}; each setter checks its value and names it when refusing it. The
     * operation timeout (200 ms at the least) counts from when the call has a connection; the idle record
     * retention is how long a free or expired row stays before {@link JdbcLockStore#purgeIdleRecords()} deletes
     * it, so keep it well above the clock corrections your database host may see; retries (connection loss,
     * deadlocks, timeouts) default to 3 attempts, backoff 20 ms doubling to 500 ms.
     */
    public static final class Builder extends StoreBuilder<Builder> {
        private final DataSource dataSource;
        private String table = "lockmanager_locks";
        private boolean durableReleases;

        private Builder(DataSource dataSource) {
            // 200 ms: the driver's query timeout counts whole seconds, its network timeout milliseconds
            super(Duration.ofMillis(200), new RetryPolicy(3, Duration.ofMillis(20), Duration.ofMillis(500)));
            this.dataSource = requireOwnConnections(Require.notNull(dataSource, "dataSource"));
        }

        /**
         * Refuses Spring's transaction-aware proxy: inside a transaction it hands out the transaction's connection, on
         * which the store's writes would be committed with the application's work, or undone by its rollback after
         * the store reported a grant.
         */
        private static DataSource requireOwnConnections(DataSource dataSource) {
            for (Class<?> type = dataSource.getClass(); type != null; type = type.getSuperclass()) {
                if (type.getName().equals("org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy")) {
                    throw new IllegalArgumentException("dataSource is a " + dataSource.getClass().getName()
                            + ", which hands out the connection of the caller's transaction, but every statement of "
                            + "the lock store must commit on its own: give the store the DataSource it wraps "
                            + "(getTargetDataSource())");
                }
            }
            return dataSource;
        }

        /**
         * The lock table, optionally schema-qualified ({@code schema.table}); letters, digits and {@code _}, at
         * most 63 for the schema and 55 for the table, whose holders table adds {@code _holders} within the
         * databases' limit of 63. A prefix is part of the name ({@code myapp_locks}). Default
         * {@code lockmanager_locks}.
         */
        public Builder tableName(String table) {
            if (table == null || !TABLE_NAME.matcher(table).matches()) {
                throw new IllegalArgumentException("tableName must be [schema.]name of letters, digits and '_' "
                        + "(not starting with a digit, at most 63 for the schema and 55 for the table, whose holders "
                        + "table adds '_holders'), was '" + table + "'");
            }
            this.table = table;
            return this;
        }

        /**
         * Whether a release waits until the database has flushed its commit to disk. Default {@code false}: on
         * PostgreSQL a release's statement (of an exclusive lock, or of a shared or intention holder) commits without
         * waiting ({@code synchronous_commit} off for that statement's transaction only), which saves the flush, a
         * good part of a lock+unlock. No guarantee rests on a release being durable: every acquisition, renewal and
         * abort still waits for its flush, and the database flushes its log in order, so an acquisition of the key
         * that follows a release makes that release durable too. A release inside a {@link GuardedTransaction}
         * commits with the caller's work, as the caller's session says. What it can cost: if the database crashes, or
         * fails over to a standby, in the moment after a release (PostgreSQL flushes within three times its
         * {@code wal_writer_delay}, 600 ms by default), the release may be undone, and the key then stays held by
         * the acquisition that released it until its lease ends. Set {@code true} to have every release wait for the
         * flush. MariaDB and MySQL can only set that server-wide, and H2 is not made durable per statement: their
         * releases commit as everything else does.
         */
        public Builder durableReleases(boolean durableReleases) {
            this.durableReleases = durableReleases;
            return this;
        }

        public JdbcLockStore build() {
            return new JdbcLockStore(this);
        }
    }

    /**
     * Creates the table when absent, then checks its key column: a column that would merge distinct keys (a
     * case- or accent-insensitive or padding collation) or cut long ones is refused. Then the same for the holders
     * table. On PostgreSQL, starts listening for releases where the table can mark waiters.
     */
    @Override
    public void initialize() throws LockManagerException {
        JdbcStatements sql = statements();
        boolean announcing = new JdbcSchema(dataSource, table, operationTimeout).create(sql);
        if (announcing && releases == null) {
            releases = new PostgresReleaseListener(dataSource, table);
        }
    }

    /** The statements of this database's dialect, found out on first use. */
    private JdbcStatements statements() throws LockManagerException {
        JdbcStatements sql = statements;
        if (sql == null) {
            sql = JdbcStatements.forDatabase(dataSource, table, durableReleases);
            statements = sql;
        }
        return sql;
    }

    @Override
    public AcquireResult acquire(LockRequest request, Duration lease) throws LockManagerException {
        JdbcStatements sql = statements();
        LockHandle handle = request.handle();
        if (request.mode() != LockMode.EXCLUSIVE) {
            AcquireResult joined = calls.call("acquire lock '" + handle.key().name() + "' " + request.mode(),
                    (c, timeout) -> sql.shared.take(c, request, lease));
            if (joined.isAcquired()) {
                holders.remember(handle, Boolean.TRUE);
            }
            return joined;
        }
        boolean announcing = releases != null;
        return calls.call("acquire lock '" + handle.key().name() + "'",
                (c, timeout) -> ExclusiveRows.acquire(sql, c, request, lease, announcing));
    }

    @Override
    public Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) throws LockManagerException {
        JdbcStatements sql = statements();
        return holders.forgetLost(calls.call("renew " + handles.size() + " locks", (c, timeout) ->
                JdbcBatches.withHolders(handles, JdbcBatches.renewRows(sql, c, timeout, handles, lease),
                        notFound -> JdbcRows.inTransaction(c, () -> sql.holderReads.renew(c, notFound, lease, timeout)))));
    }

    @Override
    public Map<LockHandle, HoldState> check(List<LockHandle> handles) throws LockManagerException {
        JdbcStatements sql = statements();
        return holders.forgetLost(calls.call("check " + handles.size() + " locks", (c, timeout) ->
                JdbcBatches.withHolders(handles, JdbcBatches.checkRows(sql, c, timeout, handles),
                        notFound -> sql.holderReads.states(c, notFound, timeout))));
    }

    @Override
    public boolean release(LockHandle handle) throws LockManagerException {
        JdbcStatements sql = statements();
        if (holders.isHolder(handle)) {
            // its record is in the holders table: the lock table need not be asked first
            boolean released = calls.call("release lock '" + handle.key().name() + "'",
                    (c, timeout) -> sql.holderReads.release(c, handle));
            holders.forget(handle);
            return released;
        }
        boolean announcing = releases != null;
        return calls.call("release lock '" + handle.key().name() + "'",
                (c, timeout) -> ExclusiveRows.release(sql, c, handle, announcing));
    }

    /**
     * On PostgreSQL, marks the key's row as waited for and wakes the waiter at a release that notifies this store's
     * listener; elsewhere, or before {@link #initialize()}, {@code null}: the waiter polls. Also {@code null} for a key
     * of lock requests: their permits live in the holders table, whose releases announce nothing.
     */
    @Override
    public Runnable watchRelease(LockKey key, Runnable wake) throws LockManagerException {
        PostgresReleaseListener listener = releases;
        return listener == null || key.isRequests() ? null : listener.watch(key.storageKey(), wake, markWaiter(key));
    }

    /** Makes a waiter of {@code key} known to its releasers: the row is marked, so that they notify. */
    private ReleaseWaiters.Mark markWaiter(LockKey key) throws LockManagerException {
        JdbcStatements sql = statements();
        return () -> calls.call("mark a waiter of lock '" + key.name() + "'", (c, remaining) -> {
            try (PreparedStatement mark = c.prepareStatement(sql.markWaited)) {
                mark.setString(1, key.storageKey());
                return mark.executeUpdate() == 1;
            }
        });
    }

    @Override
    public Optional<LockRecord> read(LockKey key) throws LockManagerException {
        JdbcStatements sql = statements();
        return calls.call("read lock '" + key.name() + "'", (c, timeout) -> {
            Optional<LockRecord> exclusive = JdbcRows.queryOne(c, sql.readLive, key);
            return exclusive.isPresent() ? exclusive : sql.holderReads.readAny(c, key);
        });
    }

    /**
     * The key's row and its holders' rows, those whose lease has ended included: the store keeps them until purged. A
     * key of requests has permit holders only, so its row is not read: a fair try's read of its line is one statement.
     */
    @Override
    public List<LockRecord> inspect(LockKey key) throws LockManagerException {
        JdbcStatements sql = statements();
        return calls.call("inspect lock '" + key.name() + "'", (c, timeout) -> {
            List<LockRecord> records = new ArrayList<>();
            if (!key.isRequests()) {
                JdbcRows.queryOne(c, sql.readOwned, key).ifPresent(records::add);
            }
            records.addAll(sql.holderReads.inspect(c, key));
            return records;
        });
    }

    @Override
    public List<LockRecord> list() throws LockManagerException {
        JdbcStatements sql = statements();
        return calls.call("list locks", (c, timeout) -> {
            List<LockRecord> records = new ArrayList<>();
            try (PreparedStatement list = JdbcRows.prepare(c, sql.listLive, timeout); ResultSet rs = list.executeQuery()) {
                while (rs.next()) {
                    records.add(JdbcRows.toRecord(rs, null));
                }
            }
            records.addAll(sql.holderReads.list(c, timeout));
            return records;
        });
    }

    @Override
    public boolean markAbort(LockKey key) throws LockManagerException {
        JdbcStatements sql = statements();
        return calls.call("abort lock '" + key.name() + "'", (c, timeout) -> {
            try (PreparedStatement abort = c.prepareStatement(sql.abort)) {
                abort.setString(1, key.storageKey());
                if (abort.executeUpdate() == 1) {
                    return true;
                }
            }
            return sql.holderReads.markAbort(c, key);
        });
    }

    /**
     * Deletes the rows that have been free or expired for longer than the idle record retention, and the holders
     * whose lease has ended.
     */
    @Override
    public int purgeIdleRecords() throws LockManagerException {
        JdbcStatements sql = statements();
        return calls.call("purge idle rows", (c, timeout) -> {
            int holders = sql.holderReads.purge(c, timeout);
            try (PreparedStatement purge = JdbcRows.prepare(c, sql.purge, timeout)) {
                purge.setLong(1, idleRecordRetention.toMillis());
                return holders + purge.executeUpdate();
            }
        });
    }

    /**
     * Starts guarding the caller's transaction on {@code connection} with {@code held}, an exclusive lock of a manager
     * on this store: checks that the lock is still this acquisition's and locks its row until the transaction ends,
     * so that no other node can take the lock over before then (see {@link GuardedTransaction}). One round trip.
     *
     * @param connection a connection to this store's database, with auto-commit off, in the transaction to guard
     * @throws LockLostException             if the lock is no longer this acquisition's; the transaction is left as it
     *                                       was, for the caller to roll back
     * @throws SQLException                  if the check failed, or the connection is to another database
     * @throws IllegalStateException         if the connection is in auto-commit mode, or {@code held} is closed
     * @throws UnsupportedOperationException if {@code held} is not an exclusive lock
     * @throws LockManagerException          if the store cannot tell its database's dialect
     */
    public GuardedTransaction guard(Connection connection, LockResource held)
            throws SQLException, LockLostException, LockManagerException {
        Require.notNull(connection, "connection");
        Require.notNull(held, "held");
        JdbcStatements sql = statements();
        return GuardedTransaction.begin(connection, held, sql.confirm, sql.release, table);
    }

    /** A hand-off is the acquire statement taking over a row of the predecessor as one that is free. */
    /** Every lock mode: keys taken in other modes than exclusive have a row per holder in the holders table. */
    /** Stops listening for releases (PostgreSQL) and gives that connection back; the data source is the caller's. */
    @Override
    public void close() {
        PostgresReleaseListener listener = releases;
        if (listener != null) {
            listener.close();
        }
    }

    @Override
    public String toString() {
        JdbcStatements sql = statements;
        return "JdbcLockStore[" + table + (sql == null ? "" : " on " + sql.dialect.name()) + "]";
    }
}
