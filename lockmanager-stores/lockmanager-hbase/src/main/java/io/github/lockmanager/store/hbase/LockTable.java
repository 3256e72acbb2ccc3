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
 * thread until the call's deadline.
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
    private final AsyncTable<?> table;
    private final long deadlineNanos;
    private final long timeoutMillis;

    private LockTable(AsyncTable<?> table, long deadlineNanos, long timeoutMillis) {
        this.table = table;
        this.deadlineNanos = deadlineNanos;
        this.timeoutMillis = timeoutMillis;
    }

    /**
     * Table {@code name} of {@code connection} (waited for, if it is still opening) for a call that may take
     * {@code timeoutMillis}: the operation timeout of each of its operations, and the deadline of all its waits.
     */
    static LockTable of(CompletableFuture<AsyncConnection> connection, TableName name, long timeoutMillis)
            throws IOException {
        long deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        AsyncTable<?> table = await(connection, deadlineNanos, timeoutMillis).getTableBuilder(name)
                .setOperationTimeout(timeoutMillis, TimeUnit.MILLISECONDS).build();
        return new LockTable(table, deadlineNanos, timeoutMillis);
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
        return await(answer, deadlineNanos, timeoutMillis);
    }

    private static <T> T await(CompletableFuture<T> answer, long deadlineNanos, long timeoutMillis)
            throws IOException {
        try {
            return answer.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw (InterruptedIOException) new InterruptedIOException("interrupted while waiting for HBase")
                    .initCause(e);
        } catch (TimeoutException e) {
            throw new TimeoutIOException("no answer from HBase within the operation timeout of " + timeoutMillis
                    + " ms");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException) {
                throw (IOException) cause;
            }
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new IOException(cause);
        }
    }
}
