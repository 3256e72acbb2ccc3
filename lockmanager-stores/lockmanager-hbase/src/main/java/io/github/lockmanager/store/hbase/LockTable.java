package io.github.lockmanager.store.hbase;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.AsyncTable;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.exceptions.TimeoutIOException;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The lock table as one store call sees it: blocking calls over HBase's async client, each awaited in the calling
 * thread.
 *
 * <p>Why not HBase's {@code Table}: it runs region lookups and retries in the caller's thread and clears an interrupt
 * it meets there, so an interrupt that other code sends the holder's thread during a store call could be lost (seen
 * in {@code locateRegionInMeta}); and it hands every multi-mutation, which an acquisition is, to a thread pool and
 * back. Here the calling thread only waits: an interrupt ends the wait with the thread's flag set and an
 * {@link InterruptedIOException}, with which the store's retry policy ends the call. As after a timeout, the
 * operation may still apply (the lock manager releases an acquisition that may have). One instance serves one store
 * call, in one thread.
 */
final class LockTable {
    /**
     * How much longer than the operation timeout a wait lasts: the client ends an operation at that timeout itself,
     * with the cause of its failure, and this is only the backstop should it not.
     */
    private static final long BACKSTOP_MILLIS = 1_000;

    private final AsyncTable<?> table;
    private final long timeoutMillis;

    private LockTable(AsyncTable<?> table, long timeoutMillis) {
        this.table = table;
        this.timeoutMillis = timeoutMillis;
    }

    /**
     * Table {@code name} of {@code connection} (waited for, if it is still opening) with {@code timeoutMillis} as
     * the operation timeout of each operation, as HBase's {@code Table} has it: so that a read that settles whether
     * a timed-out write applied still has time of its own.
     */
    static LockTable of(CompletableFuture<AsyncConnection> connection, TableName name, long timeoutMillis)
            throws IOException {
        AsyncTable<?> table = await(connection, timeoutMillis).getTableBuilder(name)
                .setOperationTimeout(timeoutMillis, TimeUnit.MILLISECONDS).build();
        return new LockTable(table, timeoutMillis);
    }

    CheckAndMutateResult checkAndMutate(CheckAndMutate write) throws IOException {
        return await(table.checkAndMutate(write));
    }

    Result get(Get get) throws IOException {
        return await(table.get(get));
    }

    /** The results in the order of {@code gets}. */
    List<Result> get(List<Get> gets) throws IOException {
        return await(table.getAll(gets));
    }

    /**
     * The results in the order of {@code actions}: a {@link CheckAndMutateResult} for a check-and-mutate, a
     * {@link Result} for a get or a mutation. One failed action fails the whole batch.
     */
    List<Object> batch(List<? extends Row> actions) throws IOException {
        return await(table.batchAll(actions));
    }

    /**
     * A scanner whose {@code next()} waits for the region servers' answers in the caller's thread; an interrupt ends
     * it with an {@link InterruptedIOException}, as HBase's own scanner does.
     */
    ResultScanner scanner(Scan scan) {
        return table.getScanner(scan);
    }

    private <T> T await(CompletableFuture<T> answer) throws IOException {
        return await(answer, timeoutMillis);
    }

    private static <T> T await(CompletableFuture<T> answer, long timeoutMillis) throws IOException {
        try {
            return answer.get(timeoutMillis + BACKSTOP_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw (InterruptedIOException) new InterruptedIOException("interrupted while waiting for HBase")
                    .initCause(e);
        } catch (TimeoutException e) {
            throw new TimeoutIOException("no answer from HBase within its operation timeout of " + timeoutMillis
                    + " ms and " + BACKSTOP_MILLIS + " ms more");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException) {
                throw (IOException) cause;
            }
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            if (cause instanceof Error) {
                // not a store fault to retry, as an IOException would be: the JVM's or the client's own failure
                throw (Error) cause;
            }
            throw new IOException(cause);
        }
    }
}
