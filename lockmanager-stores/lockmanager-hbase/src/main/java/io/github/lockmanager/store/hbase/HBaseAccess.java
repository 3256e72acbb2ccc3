package io.github.lockmanager.store.hbase;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.store.support.RetryPolicy;
import io.github.lockmanager.store.support.RetryPolicy.Failure;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What the HBase store's parts share: the table, the calls' own async connection (opened at the first call, again if
 * that failed, closed with the store), and how a call is bounded and retried. The store and its helpers (batches,
 * purge, data in the lock's row) are built on it; none of them needs the store itself.
 */
final class HBaseAccess {
    private static final Logger log = LoggerFactory.getLogger(HBaseAccess.class);

    private final Connection connection;
    private final TableName tableName;
    private final Duration operationTimeout;
    private final RetryPolicy retries;

    /** The calls' connection ({@link LockTable} says why async): opened at the first call, again if that failed. */
    private final AtomicReference<CompletableFuture<AsyncConnection>> asyncConnection = new AtomicReference<>();
    private volatile boolean closed;

    HBaseAccess(Connection connection, TableName tableName, Duration operationTimeout, RetryPolicy retries) {
        this.connection = connection;
        this.tableName = tableName;
        this.operationTimeout = operationTimeout;
        this.retries = retries;
    }

    TableName tableName() {
        return tableName;
    }

    /** The application's connection the store was given (for admin calls). */
    Connection connection() {
        return connection;
    }

    /** Refuses further calls and closes the calls' connection. */
    void close() {
        closed = true;
        CompletableFuture<AsyncConnection> opened = asyncConnection.getAndSet(null);
        if (opened != null) {
            opened.thenAccept(HBaseAccess::close);
        }
    }

    @FunctionalInterface
    interface TableCall<T> {
        T run(LockTable table) throws IOException;
    }

    /** Runs {@code body} on the table, retried as the store's policy says, within the operation timeout. */
    <T> T call(String what, TableCall<T> body) throws LockManagerException {
        return retries.call(what + " in HBase table " + tableName, operationTimeout, FAILURES, remaining -> {
            return body.run(LockTable.of(asyncConnection(), tableName, remaining));
        });
    }

    private CompletableFuture<AsyncConnection> asyncConnection() throws DoNotRetryIOException {
        while (true) {
            CompletableFuture<AsyncConnection> current = asyncConnection.get();
            if (closed) {
                throw new DoNotRetryIOException(this + " is closed");
            }
            if (current != null && !current.isCompletedExceptionally()) {
                return current;
            }
            // the same configuration and, as the connection of most applications, the current user
            CompletableFuture<AsyncConnection> opening = ConnectionFactory.createAsyncConnection(
                    connection.getConfiguration());
            if (asyncConnection.compareAndSet(current, opening) && !closed) {
                return opening;
            }
            // another call opened one first, or the store closed meanwhile
            asyncConnection.compareAndSet(opening, null);
            opening.thenAccept(HBaseAccess::close);
        }
    }

    private static void close(AsyncConnection opened) {
        try {
            opened.close();
        } catch (IOException e) {
            log.warn("Closing the HBase async connection of the lock store failed: {}", e.toString());
        }
    }

    private static final RetryPolicy.Classifier FAILURES = e -> e instanceof IOException
            && !(e instanceof DoNotRetryIOException) ? Failure.TRANSIENT : Failure.PERMANENT;

    /** The store's name, for the messages of its calls. */
    @Override
    public String toString() {
        return "HBaseLockStore[" + tableName + "]";
    }
}
