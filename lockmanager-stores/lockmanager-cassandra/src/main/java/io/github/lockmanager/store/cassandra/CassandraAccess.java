package io.github.lockmanager.store.cassandra;

import com.datastax.oss.driver.api.core.AllNodesFailedException;
import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import com.datastax.oss.driver.api.core.DriverTimeoutException;
import com.datastax.oss.driver.api.core.connection.BusyConnectionException;
import com.datastax.oss.driver.api.core.connection.ClosedConnectionException;
import com.datastax.oss.driver.api.core.connection.HeartbeatException;
import com.datastax.oss.driver.api.core.cql.AsyncResultSet;
import com.datastax.oss.driver.api.core.cql.BatchStatement;
import com.datastax.oss.driver.api.core.cql.BatchStatementBuilder;
import com.datastax.oss.driver.api.core.cql.DefaultBatchType;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.datastax.oss.driver.api.core.cql.Statement;
import com.datastax.oss.driver.api.core.servererrors.BootstrappingException;
import com.datastax.oss.driver.api.core.servererrors.CASWriteUnknownException;
import com.datastax.oss.driver.api.core.servererrors.OverloadedException;
import com.datastax.oss.driver.api.core.servererrors.ReadFailureException;
import com.datastax.oss.driver.api.core.servererrors.ReadTimeoutException;
import com.datastax.oss.driver.api.core.servererrors.UnavailableException;
import com.datastax.oss.driver.api.core.servererrors.WriteFailureException;
import com.datastax.oss.driver.api.core.servererrors.WriteTimeoutException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.store.support.RetryPolicy;
import io.github.lockmanager.store.support.RetryPolicy.Failure;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What the Cassandra store's parts share: the session, the table's statements, the consistency of each level, and how a
 * call is bounded and retried. Levels map to consistency so: a {@link LockLevel#DC} key is decided by
 * {@code LOCAL_SERIAL} (Paxos among the replicas of the local data centre) and read and committed at
 * {@code LOCAL_QUORUM}; an {@link LockLevel#XDC} key by {@code SERIAL} (the replicas of every data centre) and
 * {@code QUORUM}.
 */
final class CassandraAccess {
    private static final RetryPolicy.Classifier FAILURES = new RetryPolicy.Classifier() {
        @Override
        public Failure classify(Exception failure) {
            return isTransient(failure) ? Failure.TRANSIENT : Failure.PERMANENT;
        }

        @Override
        public ErrorCode permanentCode(Exception failure) {
            return failure instanceof KeyState.Unreadable ? ErrorCode.UNREADABLE_RECORD : ErrorCode.CONNECTION_ERROR;
        }
    };

    private final CqlSession session;
    private final String keyspace;
    private final String table;
    private final Duration operationTimeout;
    private final RetryPolicy retries;
    private volatile Statements statements;

    /** The table's prepared statements, prepared once the table exists. */
    private record Statements(PreparedStatement read, PreparedStatement compareAndSet, PreparedStatement scan,
                              PreparedStatement readData, PreparedStatement putData, PreparedStatement deleteData) {
    }

    CassandraAccess(CqlSession session, String keyspace, String table, Duration operationTimeout, RetryPolicy retries) {
        this.session = session;
        this.keyspace = keyspace;
        this.table = table;
        this.operationTimeout = operationTimeout;
        this.retries = retries;
    }

    CqlSession session() {
        return session;
    }

    String keyspace() {
        return keyspace;
    }

    String table() {
        return table;
    }

    /** The table as CQL names it. */
    String qualifiedTable() {
        return CassandraSchema.quoted(keyspace) + "." + CassandraSchema.quoted(table);
    }

    /** Runs {@code call} as every call of the store runs: within the operation timeout, retried when transient. */
    <T> T call(String what, RetryPolicy.Attempt<T> call) throws LockManagerException {
        return retries.call(what + " in Cassandra", operationTimeout, FAILURES, call);
    }

    /** The same, each attempt bounded by the operation timeout on its own (the first calls of a new session). */
    <T> T callEachWithin(String what, RetryPolicy.Attempt<T> call) throws LockManagerException {
        return retries.callEachWithin(what + " in Cassandra", operationTimeout, FAILURES, call);
    }

    /** Prepares the table's statements if they are not yet (blocking: never on a driver thread). */
    void prepareStatements() {
        statements();
    }

    private Statements statements() {
        Statements prepared = statements;
        if (prepared == null) {
            String t = qualifiedTable();
            prepared = new Statements(
                    session.prepare("SELECT s FROM " + t + " WHERE k = ?"),
                    session.prepare("UPDATE " + t + " USING TTL ? SET s = ? WHERE k = ? IF s = ?"),
                    session.prepare("SELECT k, s FROM " + t),
                    session.prepare("SELECT s, d FROM " + t + " WHERE k = ?"),
                    session.prepare("UPDATE " + t + " SET d = d + ? WHERE k = ?"),
                    session.prepare("UPDATE " + t + " SET d = d - ? WHERE k = ?"));
            statements = prepared;
        }
        return prepared;
    }

    static ConsistencyLevel serialOf(LockLevel level) {
        return level == LockLevel.DC ? DefaultConsistencyLevel.LOCAL_SERIAL : DefaultConsistencyLevel.SERIAL;
    }

    static ConsistencyLevel quorumOf(LockLevel level) {
        return level == LockLevel.DC ? DefaultConsistencyLevel.LOCAL_QUORUM : DefaultConsistencyLevel.QUORUM;
    }

    /**
     * The state cell of {@code key} as a quorum of its level holds it, or a linearizable read ({@code serial}: one
     * that also completes a Paxos round left in progress) where a decision must not rest on an older value.
     */
    CompletableFuture<ByteBuffer> readState(LockKey key, boolean serial, long timeoutMillis) {
        BoundStatement read = statements().read.bind(key.storageKey())
                .setConsistencyLevel(serial ? serialOf(key.level()) : quorumOf(key.level()))
                .setTimeout(Duration.ofMillis(timeoutMillis));
        return session.executeAsync(read).toCompletableFuture().thenApply(rs -> {
            Row row = rs.one();
            return row == null ? null : row.getByteBuffer(0);
        });
    }

    /** The answer of one compare-and-set: whether it applied, and the cell's value when it did not. */
    record Swap(boolean applied, ByteBuffer current) {
    }

    /** Sets the state cell of {@code key} to {@code next} if it holds {@code expected} ({@code null}: no state). */
    CompletableFuture<Swap> compareAndSet(LockKey key, ByteBuffer expected, ByteBuffer next, int ttlSeconds,
                                          long timeoutMillis) {
        return swap(statements().compareAndSet.bind(ttlSeconds, next, key.storageKey(), expected), key,
                timeoutMillis);
    }

    /** Runs a conditional {@code statement} on {@code key}'s partition at its level's consistency. */
    private <S extends Statement<S>> CompletableFuture<Swap> swap(S statement, LockKey key, long timeoutMillis) {
        S bounded = statement.setConsistencyLevel(quorumOf(key.level()))
                .setSerialConsistencyLevel(serialOf(key.level()))
                .setTimeout(Duration.ofMillis(timeoutMillis));
        return session.executeAsync(bounded).toCompletableFuture().thenApply(rs -> {
            if (rs.wasApplied()) {
                return new Swap(true, null);
            }
            Row row = rs.one();
            return new Swap(false, row == null ? null : row.getByteBuffer("s"));
        });
    }

    /** The state cell and the data of {@code key}, by a linearizable read of its level. */
    CompletableFuture<Row> readWithData(LockKey key, long timeoutMillis) {
        BoundStatement read = statements().readData.bind(key.storageKey())
                .setConsistencyLevel(serialOf(key.level()))
                .setTimeout(Duration.ofMillis(timeoutMillis));
        return session.executeAsync(read).toCompletableFuture().thenApply(AsyncResultSet::one);
    }

    /**
     * Sets the state cell of {@code key} to {@code next} if it holds {@code expected}, and with it puts and deletes the
     * named data: one conditional batch on the key's partition, so all of it or none applies. The data has no TTL.
     */
    CompletableFuture<Swap> compareAndSetWithData(LockKey key, ByteBuffer expected, ByteBuffer next, int ttlSeconds,
                                                  Map<String, ByteBuffer> puts, Set<String> deletes,
                                                  long timeoutMillis) {
        Statements prepared = statements();
        BatchStatementBuilder batch = BatchStatement.builder(DefaultBatchType.UNLOGGED)
                .addStatement(prepared.compareAndSet.bind(ttlSeconds, next, key.storageKey(), expected));
        if (!puts.isEmpty()) {
            batch.addStatement(prepared.putData.bind(puts, key.storageKey()));
        }
        if (!deletes.isEmpty()) {
            batch.addStatement(prepared.deleteData.bind(deletes, key.storageKey()));
        }
        return swap(batch.build(), key, timeoutMillis);
    }

    /** A scan of the whole table at {@code consistency}, {@code pageSize} rows a page. */
    CompletableFuture<AsyncResultSet> scan(ConsistencyLevel consistency, int pageSize, long timeoutMillis) {
        return session.executeAsync(statements().scan.bind().setConsistencyLevel(consistency).setPageSize(pageSize)
                .setTimeout(Duration.ofMillis(timeoutMillis))).toCompletableFuture();
    }

    /** Runs a statement of the schema's (no lock calls), within {@code timeoutMillis}. */
    AsyncResultSet execute(SimpleStatement statement, long timeoutMillis) throws Exception {
        return await(session.executeAsync(statement.setTimeout(Duration.ofMillis(timeoutMillis)))
                .toCompletableFuture(), timeoutMillis);
    }

    /**
     * Waits for {@code future} at most {@code timeoutMillis}, as the calling thread: an interrupt cancels it and is
     * rethrown (the thread's flag set), and a failure is thrown as its cause, so that the retry policy classifies it.
     */
    static <T> T await(CompletableFuture<T> future, long timeoutMillis) throws Exception {
        try {
            return future.get(Math.max(1, timeoutMillis), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw e;
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new DriverTimeoutException("no answer within " + timeoutMillis + " ms");
        } catch (ExecutionException e) {
            throw unwrap(e);
        }
    }

    static Exception unwrap(Throwable failure) {
        Throwable c = failure;
        while ((c instanceof ExecutionException || c instanceof CompletionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c instanceof Exception ? (Exception) c : new RuntimeException(c);
    }

    /**
     * Timeouts, a coordinator without enough live replicas, writes whose outcome is unknown, and what a node says while
     * it starts or is overloaded: each may succeed when asked again. A compare-and-set asked again is safe whether or
     * not the first applied, since it names the state it expects: one that had applied finds its own holder there.
     */
    static boolean isTransient(Exception e) {
        return e instanceof DriverTimeoutException || e instanceof AllNodesFailedException
                || e instanceof WriteTimeoutException || e instanceof ReadTimeoutException
                || e instanceof UnavailableException || e instanceof CASWriteUnknownException
                || e instanceof OverloadedException || e instanceof BootstrappingException
                || e instanceof ReadFailureException || e instanceof WriteFailureException
                || e instanceof ClosedConnectionException || e instanceof HeartbeatException
                || e instanceof BusyConnectionException;
    }

    @Override
    public String toString() {
        return "Cassandra table " + keyspace + "." + table;
    }
}
