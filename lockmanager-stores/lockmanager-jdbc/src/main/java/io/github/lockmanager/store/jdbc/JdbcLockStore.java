package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * <p>{@linkplain #supportsModes() Every lock mode}: a key taken shared, or as an intention of a hierarchical lock,
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
    private static final int MAX_THREAD_NAME = 256;
    /** Key, owner token, node, thread and lease: the parameters of every dialect's acquire statement. */
    private static final int ACQUIRE_PARAMETERS = 5;

    /** Network timeouts are enforced by the driver's socket; no executor work is needed. */
    private static final Executor DIRECT = Runnable::run;

    private final DataSource dataSource;
    private final String table;
    private final Duration operationTimeout;
    private final Duration idleRecordRetention;
    private final RetryPolicy retries;
    private final boolean durableReleases;
    private volatile Statements statements;
    /**
     * The live acquisitions of this store in modes other than exclusive, so that their release goes straight to the
     * holders table; forgotten on release and when found lost.
     */
    private final Set<LockHandle> holderHandles = ConcurrentHashMap.newKeySet();
    /** Set by {@link #initialize()} where releases can be announced (PostgreSQL); {@code null} elsewhere. */
    private volatile PostgresReleaseListener releases;
    /** Whether the log has said that the pool gives connections with auto-commit off (see {@link #call}). */
    private final AtomicBoolean manualCommitSaid = new AtomicBoolean();

    private JdbcLockStore(Builder builder) {
        this.dataSource = builder.dataSource;
        this.table = builder.table;
        this.operationTimeout = builder.getOperationTimeout();
        this.idleRecordRetention = builder.getIdleRecordRetention();
        this.retries = builder.getRetries();
        this.durableReleases = builder.durableReleases;
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

    /** The SQL of one dialect for this table, built once. */
    private static final class Statements {
        final SqlDialect dialect;
        final String acquire;
        /** PostgreSQL's acquire where releases are announced; {@code null} elsewhere. */
        final String acquireClearingWaiters;
        /** {@link SqlDialect#handOff}, and how many of its parameters are the predecessor's token. */
        final String handOff;
        final int handOffPredecessors;
        final String readAny;
        final String readLive;
        /** A key's row while it is held, exclusively or by the holders its mark stands for. */
        final String readHeld;
        /** A key's row if it has an exclusive owner, whose lease may have ended. */
        final String readOwned;
        final String listLive;
        final String release;
        /** {@link #release} in a transaction of its own, committed without waiting for the flush unless durable. */
        final String releaseAlone;
        /** PostgreSQL's release that wakes marked waiters, and the mark; {@code null} elsewhere. */
        final String releaseAnnouncing;
        final String markWaited;
        /** Locks a lock's row for a {@link GuardedTransaction} if it is the acquisition's and its lease runs. */
        final String confirm;
        final String abort;
        final String purge;
        /** PostgreSQL's batch statements with array parameters; {@code null} elsewhere. */
        final String renewByArrays;
        final String statesByArrays;
        final SharedHolders shared;
        private final String table;
        private final Map<String, String> byBatchSize = Collections.synchronizedMap(new HashMap<>());

        Statements(SqlDialect dialect, String table, boolean durableReleases) {
            this.dialect = dialect;
            this.table = table;
            String now = dialect.now();
            // a row whose holders are in the holders table is shown through them
            String live = " AND owner_token IS NOT NULL AND owner_token NOT IN " + SharedHolders.MARKS
                    + " AND expires_at > " + now;
            this.acquire = dialect.acquire(table);
            this.acquireClearingWaiters = dialect.acquireClearingWaiters(table);
            this.handOff = dialect.handOff(table);
            this.handOffPredecessors = (int) handOff.chars().filter(ch -> ch == '?').count() - ACQUIRE_PARAMETERS;
            this.readAny = "SELECT " + SqlDialect.COLUMNS + " FROM " + table + " WHERE lock_key = ?";
            this.readLive = readAny + live;
            this.readHeld = readAny + " AND owner_token IS NOT NULL AND expires_at > " + now;
            this.readOwned = readAny + " AND owner_token IS NOT NULL AND owner_token NOT IN " + SharedHolders.MARKS;
            this.listLive = "SELECT " + SqlDialect.COLUMNS + " FROM " + table + " WHERE 1 = 1" + live;
            this.release = "UPDATE " + table + " SET owner_token = NULL, status = 'FREE', expires_at = " + now
                    + ", last_modified = " + now + " WHERE lock_key = ? AND owner_token = ? AND expires_at > " + now;
            // never in a guarded transaction's release, whose commit is the caller's work
            String unflushed = durableReleases ? "" : dialect.commitWithoutFlush();
            this.releaseAlone = release + unflushed;
            this.releaseAnnouncing = dialect.releaseAnnouncing(table, unflushed);
            this.markWaited = dialect.markWaited(table);
            this.confirm = "SELECT fencing_token FROM " + table + " WHERE lock_key = ? AND owner_token = ? AND "
                    + "expires_at > " + now + " FOR UPDATE";
            this.abort = "UPDATE " + table + " SET status = 'ABORT', last_modified = " + now + " WHERE lock_key = ?" + live;
            this.purge = dialect.purge(table);
            this.renewByArrays = dialect.renewByArrays(table);
            this.statesByArrays = dialect.statesByArrays(table);
            this.shared = new SharedHolders(dialect, table, unflushed);
        }

        /*
         * The IN-list statements for n locks, padded to a power of two so that only a handful of distinct
         * statements ever exist (drivers cache prepared statements by their text).
         */
        String renew(int n) {
            return byBatchSize.computeIfAbsent("r" + n, k -> "UPDATE " + table + " SET expires_at = " + dialect.now()
                    + " + ?, last_modified = " + dialect.now() + " WHERE lock_key IN (" + marks(n)
                    + ") AND owner_token IN (" + marks(n) + ") AND expires_at > " + dialect.now());
        }

        String states(int n) {
            return byBatchSize.computeIfAbsent("s" + n, k -> "SELECT owner_token, status FROM " + table
                    + " WHERE lock_key IN (" + marks(n) + ") AND owner_token IN (" + marks(n) + ") AND expires_at > "
                    + dialect.now());
        }
    }

    /**
     * Creates the table when absent, then checks its key column: a column that would merge distinct keys (a
     * case- or accent-insensitive or padding collation) or cut long ones is refused. Then the same for the holders
     * table.
     */
    @Override
    public void initialize() throws LockManagerException {
        Statements sql = statements();
        try (Connection c = dataSource.getConnection()) {
            // the lock table first: a holders table is not made for a lock table the store refuses
            List<String> tables = sql.dialect.createTables(table);
            create(c, sql.dialect, tables.get(0), table);
            String problem = keyColumnProblem(sql.dialect, c, table);
            if (problem == null) {
                String holders = table + "_holders";
                for (String ddl : tables.subList(1, tables.size())) {
                    create(c, sql.dialect, ddl, holders);
                }
                String holdersProblem = keyColumnProblem(sql.dialect, c, holders);
                problem = holdersProblem == null ? null : "in its holders table " + holders + ", " + holdersProblem;
            }
            if (!c.getAutoCommit()) {
                c.commit();
            }
            if (problem != null) {
                throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "lock table " + table + " on "
                        + sql.dialect.name() + " exists with a layout the store cannot use: " + problem + ". Recreate it "
                        + "from " + sql.dialect.ddlFile() + " in the lockmanager jar, or choose another table name.");
            }
            if (sql.releaseAnnouncing != null && releases == null && waitersColumn(c, sql.dialect)) {
                releases = new PostgresReleaseListener(dataSource, table);
            }
        } catch (SQLException e) {
            throw new LockManagerException(ErrorCode.CONNECTION_ERROR, "could not reach the database to create lock table "
                    + table + ": " + SqlFailures.INSTANCE.describe(e), e);
        }
    }

    /**
     * Whether the table has the column waiters mark, adding it to a table made before it existed; without it (the
     * table's owner must add it) waiters poll, which is said once.
     */
    private boolean waitersColumn(Connection c, SqlDialect dialect) throws SQLException {
        if (dialect.hasWaitersColumn(c, table)) {
            return true;
        }
        try (PreparedStatement add = c.prepareStatement(dialect.addWaitersColumn(table))) {
            add.execute();
            if (!c.getAutoCommit()) {
                c.commit();
            }
            log.info("Added the column waiters to lock table {}: waiters on other nodes are now woken by releases",
                    table);
            return true;
        } catch (SQLException e) {
            if (!c.getAutoCommit()) {
                c.rollback();
            }
            log.warn("Lock table {} has no column waiters and it could not be added ({}); waiters poll instead of "
                    + "being woken by releases. Its owner can add it: {}", table, SqlFailures.INSTANCE.describe(e),
                    dialect.addWaitersColumn(table));
            return false;
        }
    }

    private void create(Connection c, SqlDialect dialect, String ddl, String created) throws LockManagerException {
        try (PreparedStatement create = c.prepareStatement(ddl)) {
            create.setQueryTimeout(timeoutSeconds(operationTimeout.toMillis()) * 6);
            create.execute();
            log.debug("Lock table {} is in place on {}", created, dialect.name());
        } catch (SQLException e) {
            // another node may have created it at the same moment (PostgreSQL then reports a duplicate type)
            if (!tableExists(c, created)) {
                throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "could not create lock table " + created
                        + " on " + dialect.name() + ": " + SqlFailures.INSTANCE.describe(e), e);
            }
        }
    }

    /** What is wrong with the key column of an existing table; a failed inspection is said as such. */
    private static String keyColumnProblem(SqlDialect dialect, Connection c, String table) throws LockManagerException {
        try {
            return dialect.keyColumnProblem(c, table);
        } catch (SQLException e) {
            throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "could not inspect the key column of lock "
                    + "table " + table + " on " + dialect.name() + ": " + SqlFailures.INSTANCE.describe(e), e);
        }
    }

    private static boolean tableExists(Connection c, String table) {
        try (PreparedStatement probe = c.prepareStatement("SELECT COUNT(*) FROM " + table + " WHERE 1 = 0");
             ResultSet ignored = probe.executeQuery()) {
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    /** The statements of this database's dialect, found out on first use. */
    private Statements statements() throws LockManagerException {
        Statements sql = statements;
        if (sql != null) {
            return sql;
        }
        String product;
        String version;
        int major;
        int minor;
        try (Connection c = dataSource.getConnection()) {
            product = c.getMetaData().getDatabaseProductName();
            version = c.getMetaData().getDatabaseProductVersion();
            major = c.getMetaData().getDatabaseMajorVersion();
            minor = c.getMetaData().getDatabaseMinorVersion();
        } catch (SQLException e) {
            throw new LockManagerException(ErrorCode.CONNECTION_ERROR, "could not reach the database of lock table "
                    + table + ": " + SqlFailures.INSTANCE.describe(e), e);
        }
        SqlDialect dialect = SqlDialect.of(product, major, minor);
        if (dialect == null) {
            throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "the JDBC lock store does not support "
                    + product + " " + version + "; supported are PostgreSQL, MariaDB, MySQL 8 and H2");
        }
        sql = new Statements(dialect, table, durableReleases);
        statements = sql;
        return sql;
    }

    @Override
    public AcquireResult acquire(LockRequest request, Duration lease) throws LockManagerException {
        Statements sql = statements();
        LockHandle handle = request.handle();
        if (request.mode() != LockMode.EXCLUSIVE) {
            AcquireResult joined = call("acquire lock '" + handle.key().name() + "' " + request.mode(), (c, timeout) -> {
                AcquireResult result = sql.shared.join(c, request, lease);
                if (result != null) {
                    return result;
                }
                result = inTransaction(c, () -> sql.shared.acquire(c, request, lease));
                if (result == null) {
                    sql.shared.createFreeRow(c, handle.key());
                    result = inTransaction(c, () -> sql.shared.acquire(c, request, lease));
                }
                if (result == null) {
                    throw new SQLException("the row of lock '" + handle.key().name() + "' was deleted while it was "
                            + "being taken", "40001");
                }
                return result;
            });
            if (joined.isAcquired()) {
                holderHandles.add(handle);
            }
            return joined;
        }
        return call("acquire lock '" + handle.key().name() + "'", (c, timeout) -> {
            Optional<LockRecord> taken = Optional.empty();
            LockHandle predecessor = request.predecessor();
            try (PreparedStatement acquire = c.prepareStatement(predecessor != null ? sql.handOff
                    : releases != null ? sql.acquireClearingWaiters : sql.acquire)) {
                acquire.setString(1, handle.key().storageKey());
                acquire.setString(2, handle.ownerToken());
                acquire.setString(3, request.nodeId());
                String threadName = storableThreadName(request.threadName());
                acquire.setString(4, threadName);
                acquire.setLong(5, lease.toMillis());
                for (int p = 1; predecessor != null && p <= sql.handOffPredecessors; p++) {
                    acquire.setString(ACQUIRE_PARAMETERS + p, predecessor.ownerToken());
                }
                SqlDialect.AcquireAnswer answer = sql.dialect.acquireAnswer();
                if (answer == SqlDialect.AcquireAnswer.NOTHING) {
                    acquire.executeUpdate();
                } else {
                    try (ResultSet rs = acquire.executeQuery()) {
                        taken = !rs.next() ? Optional.empty() : Optional.of(answer == SqlDialect.AcquireAnswer.GRANT
                                ? granted(request, threadName, lease, rs) : toRecord(rs, handle.key()));
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
            Optional<LockRecord> holder = queryOne(c, sql.readHeld, handle.key());
            if (holder.isEmpty() || !SharedHolders.isMark(holder.get().ownerToken())) {
                return AcquireResult.fromRecord(handle, holder.orElse(null));
            }
            // a row marked for holders in other modes: refused while one of them is live (looked at without locking the
            // row, which would hold up its readers), taken over when none is
            holder = sql.shared.readAny(c, handle.key());
            if (holder.isPresent()) {
                return AcquireResult.heldBy(holder.get());
            }
            AcquireResult takenOver = inTransaction(c, () -> sql.shared.takeOver(c, request, lease));
            if (takenOver != null) {
                return takenOver;
            }
            // another writer took the row over meanwhile: name it, as any refusal does
            holder = queryOne(c, sql.readHeld, handle.key()).filter(row -> !SharedHolders.isMark(row.ownerToken()));
            return AcquireResult.fromRecord(handle, holder.orElse(null));
        });
    }

    @Override
    public Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) throws LockManagerException {
        Statements sql = statements();
        return forgetLost(call("renew " + handles.size() + " locks", (c, timeout) -> withHolders(handles,
                renewRows(sql, c, timeout, handles, lease),
                notFound -> inTransaction(c, () -> sql.shared.renew(c, notFound, lease, timeout)))));
    }

    /** The lock table's answer for {@code handles}: only exclusive holders are found there. */
    private static Map<LockHandle, HoldState> renewRows(Statements sql, Connection c, long timeout,
                                                        List<LockHandle> handles, Duration lease) throws SQLException {
        if (sql.renewByArrays != null) {
            try (PreparedStatement renew = prepare(c, sql.renewByArrays, timeout)) {
                renew.setLong(1, lease.toMillis());
                bindArrays(c, renew, 2, handles);
                return answers(handles, renew);
            }
        }
        int n = paddedSize(handles.size());
        return inTransaction(c, () -> {
            try (PreparedStatement renew = prepare(c, sql.renew(n), timeout)) {
                renew.setLong(1, lease.toMillis());
                bindBatch(renew, 2, handles, n);
                renew.executeUpdate();
            }
            try (PreparedStatement states = prepare(c, sql.states(n), timeout)) {
                bindBatch(states, 1, handles, n);
                return answers(handles, states);
            }
        });
    }

    @Override
    public Map<LockHandle, HoldState> check(List<LockHandle> handles) throws LockManagerException {
        Statements sql = statements();
        return forgetLost(call("check " + handles.size() + " locks", (c, timeout) -> withHolders(handles,
                checkRows(sql, c, timeout, handles), notFound -> sql.shared.states(c, notFound, timeout))));
    }

    /** {@code answers}, after forgetting the holders among them found lost: their handles are done with. */
    private Map<LockHandle, HoldState> forgetLost(Map<LockHandle, HoldState> answers) {
        if (!holderHandles.isEmpty()) {
            answers.forEach((handle, state) -> {
                if (state == HoldState.LOST) {
                    holderHandles.remove(handle);
                }
            });
        }
        return answers;
    }

    private static Map<LockHandle, HoldState> checkRows(Statements sql, Connection c, long timeout,
                                                        List<LockHandle> handles) throws SQLException {
        if (sql.statesByArrays != null) {
            try (PreparedStatement states = prepare(c, sql.statesByArrays, timeout)) {
                bindArrays(c, states, 1, handles);
                return answers(handles, states);
            }
        }
        int n = paddedSize(handles.size());
        try (PreparedStatement states = prepare(c, sql.states(n), timeout)) {
            bindBatch(states, 1, handles, n);
            return answers(handles, states);
        }
    }

    @FunctionalInterface
    private interface HolderAnswers {
        Map<LockHandle, HoldState> ask(List<LockHandle> handles) throws SQLException;
    }

    /**
     * The lock table's {@code answers}, completed by the holders table for the handles the lock table did not
     * find: those are holders in another mode, or lost. A node holding only exclusive locks never asks the holders
     * table, unless one of its locks is lost.
     */
    private static Map<LockHandle, HoldState> withHolders(List<LockHandle> handles, Map<LockHandle, HoldState> answers,
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

    @Override
    public boolean release(LockHandle handle) throws LockManagerException {
        Statements sql = statements();
        if (holderHandles.contains(handle)) {
            // its record is in the holders table: the lock table need not be asked first
            boolean released = call("release lock '" + handle.key().name() + "'",
                    (c, timeout) -> sql.shared.release(c, handle));
            holderHandles.remove(handle);
            return released;
        }
        boolean announcing = releases != null;
        return call("release lock '" + handle.key().name() + "'", (c, timeout) -> {
            try (PreparedStatement release = c.prepareStatement(announcing ? sql.releaseAnnouncing
                    : sql.releaseAlone)) {
                release.setString(1, handle.key().storageKey());
                release.setString(2, handle.ownerToken());
                if (announcing ? released(release) : release.executeUpdate() == 1) {
                    return true;
                }
            }
            // a holder in another mode, or a lock no longer ours
            return sql.shared.release(c, handle);
        });
    }

    private static boolean released(PreparedStatement releaseAnnouncing) throws SQLException {
        try (ResultSet rs = releaseAnnouncing.executeQuery()) {
            return rs.next();
        }
    }

    /**
     * On PostgreSQL, marks the key's row as waited for and waits for a release that notifies this store's listener;
     * elsewhere, or before {@link #initialize()}, {@code false} at once.
     */
    @Override
    public boolean awaitRelease(LockKey key, Duration timeout) throws LockManagerException, InterruptedException {
        PostgresReleaseListener listener = releases;
        if (listener == null) {
            return false;
        }
        Statements sql = statements();
        return listener.await(key.storageKey(), timeout, () -> call("mark a waiter of lock '" + key.name() + "'",
                (c, remaining) -> {
                    try (PreparedStatement mark = c.prepareStatement(sql.markWaited)) {
                        mark.setString(1, key.storageKey());
                        return mark.executeUpdate() == 1;
                    }
                }));
    }

    @Override
    public Optional<LockRecord> read(LockKey key) throws LockManagerException {
        Statements sql = statements();
        return call("read lock '" + key.name() + "'", (c, timeout) -> {
            Optional<LockRecord> exclusive = queryOne(c, sql.readLive, key);
            return exclusive.isPresent() ? exclusive : sql.shared.readAny(c, key);
        });
    }

    /** The key's row and its holders' rows, those whose lease has ended included: the store keeps them until purged. */
    @Override
    public List<LockRecord> inspect(LockKey key) throws LockManagerException {
        Statements sql = statements();
        return call("inspect lock '" + key.name() + "'", (c, timeout) -> {
            List<LockRecord> records = new ArrayList<>();
            queryOne(c, sql.readOwned, key).ifPresent(records::add);
            records.addAll(sql.shared.inspect(c, key));
            return records;
        });
    }

    @Override
    public List<LockRecord> list() throws LockManagerException {
        Statements sql = statements();
        return call("list locks", (c, timeout) -> {
            List<LockRecord> records = new ArrayList<>();
            try (PreparedStatement list = prepare(c, sql.listLive, timeout); ResultSet rs = list.executeQuery()) {
                while (rs.next()) {
                    records.add(toRecord(rs, null));
                }
            }
            records.addAll(sql.shared.list(c, timeout));
            return records;
        });
    }

    @Override
    public boolean markAbort(LockKey key) throws LockManagerException {
        Statements sql = statements();
        return call("abort lock '" + key.name() + "'", (c, timeout) -> {
            try (PreparedStatement abort = c.prepareStatement(sql.abort)) {
                abort.setString(1, key.storageKey());
                if (abort.executeUpdate() == 1) {
                    return true;
                }
            }
            return sql.shared.markAbort(c, key);
        });
    }

    /**
     * Deletes the rows that have been free or expired for longer than the idle record retention, and the holders
     * whose lease has ended.
     */
    @Override
    public int purgeIdleRecords() throws LockManagerException {
        Statements sql = statements();
        return call("purge idle rows", (c, timeout) -> {
            int holders = sql.shared.purge(c, timeout);
            try (PreparedStatement purge = prepare(c, sql.purge, timeout)) {
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
        Statements sql = statements();
        return GuardedTransaction.begin(connection, held, sql.confirm, sql.release, table);
    }

    /** A hand-off is the acquire statement taking over a row of the predecessor as one that is free. */
    @Override
    public boolean supportsHandOff() {
        return true;
    }

    /** Every lock mode: keys taken in other modes than exclusive have a row per holder in the holders table. */
    @Override
    public boolean supportsModes() {
        return true;
    }

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
        Statements sql = statements;
        return "JdbcLockStore[" + table + (sql == null ? "" : " on " + sql.dialect.name()) + "]";
    }

    /**
     * A statement over many rows, with the remaining time as its query timeout as well, so that the server cancels
     * it and the connection stays usable. Statements on one key's row go without: they are bounded by the network
     * timeout alone, because the driver implements a query timeout (PostgreSQL's) with a task on its timer thread
     * per statement, which cost about a tenth of an uncontended lock+unlock when measured.
     */
    static PreparedStatement prepare(Connection c, String statement, long timeoutMillis) throws SQLException {
        PreparedStatement prepared = c.prepareStatement(statement);
        prepared.setQueryTimeout(timeoutSeconds(timeoutMillis));
        return prepared;
    }

    private static int timeoutSeconds(long millis) {
        return (int) Math.max(1, (millis + 999) / 1000);
    }

    private static Optional<LockRecord> queryOne(Connection c, String statement, LockKey key) throws SQLException {
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
    private static void bindArrays(Connection c, PreparedStatement statement, int first, List<LockHandle> handles)
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
    private static LockRecord granted(LockRequest request, String threadName, Duration lease, ResultSet rs)
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
    private interface SqlCall<T> {
        T run(Connection c, long timeoutMillis) throws SQLException;
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

    /**
     * Runs {@code body} on a connection of the data source, retried as {@link SqlFailures} says, each attempt
     * bounded by what is left of the operation timeout, also on the socket: a query timeout alone is a cancel
     * request, which a partitioned network swallows as well. The connection is in auto-commit mode while it runs,
     * whatever mode the pool gives it in: each statement must be committed when it answers (a grant the caller is
     * told of must be in the table), and a pool with auto-commit off rolled the store's writes back when it took its
     * connection back, so that two owners were granted one key.
     */
    private <T> T call(String what, SqlCall<T> body) throws LockManagerException {
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
