package io.github.lockmanager.store.redis;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.store.support.RetryPolicy;
import io.github.lockmanager.store.redis.RedisScripts.Script;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What the Redis store's parts share: the connection its commands go over (one, thread-safe: Lettuce pipelines the
 * commands of every thread on it), the layout, and how a call is bounded and retried. A script is sent by its SHA-1
 * ({@code EVALSHA}) and, where the server's script cache does not hold it, once more with its text ({@code EVAL},
 * which caches it again).
 */
final class RedisAccess {
    private final StatefulConnection<String, String> connection;
    private final RedisClusterAsyncCommands<String, String> commands;
    private final boolean cluster;
    private final RedisLayout layout;
    private final Duration operationTimeout;
    private final Duration retention;
    private final RetryPolicy retries;

    RedisAccess(StatefulConnection<String, String> connection, RedisClusterAsyncCommands<String, String> commands,
                boolean cluster, RedisLayout layout, Duration operationTimeout, Duration retention, RetryPolicy retries) {
        this.connection = connection;
        this.commands = commands;
        this.cluster = cluster;
        this.layout = layout;
        this.operationTimeout = operationTimeout;
        this.retention = retention;
        this.retries = retries;
    }

    RedisLayout layout() {
        return layout;
    }

    RedisClusterAsyncCommands<String, String> commands() {
        return commands;
    }

    StatefulConnection<String, String> connection() {
        return connection;
    }

    boolean isCluster() {
        return cluster;
    }

    long retentionMillis() {
        return retention.toMillis();
    }

    Duration operationTimeout() {
        return operationTimeout;
    }

    /** The hash slot of {@code hash} on a cluster; 0 for every hash on one server. */
    int slotOf(String hash) {
        return cluster ? SlotHash.getSlot(hash) : 0;
    }

    /** Runs {@code attempt} within the operation timeout, retrying transient failures. */
    <T> T call(String what, RetryPolicy.Attempt<T> attempt) throws LockManagerException {
        return retries.call(what, operationTimeout, RedisFailures.INSTANCE, attempt);
    }

    /** Loads every script into the server's cache (on a cluster, every master's). */
    Void load(long timeoutMillis) throws Exception {
        long deadline = deadline(timeoutMillis);
        for (Script script : RedisScripts.ALL) {
            await(commands.scriptLoad(script.text()), deadline);
        }
        return null;
    }

    /** Sends {@code script} by its SHA-1 without waiting for the answer. */
    RedisFuture<Object> send(Script script, String[] keys, String... args) {
        return commands.evalsha(script.sha(), ScriptOutputType.MULTI, keys, args);
    }

    /** Sends {@code script} and waits for its answer, at most {@code timeoutMillis}. */
    <T> T run(Script script, long timeoutMillis, String[] keys, String... args) throws Exception {
        return answer(send(script, keys, args), deadline(timeoutMillis), script, keys, args);
    }

    /** The nanoTime by which an attempt given {@code timeoutMillis} must have its answers. */
    static long deadline(long timeoutMillis) {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    }

    /**
     * The answer of a script sent by {@link #send}, waited for until {@code deadline}; a script the server's cache
     * lacked is sent again with its text.
     */
    <T> T answer(RedisFuture<Object> sent, long deadline, Script script, String[] keys, String... args)
            throws Exception {
        return answer(sent, deadline, script, keys, new boolean[1], args);
    }

    /** As {@link #answer(RedisFuture, long, Script, String[], String...)}; sets {@code resent[0]} if sent again. */
    @SuppressWarnings("unchecked")
    <T> T answer(RedisFuture<Object> sent, long deadline, Script script, String[] keys, boolean[] resent,
                 String... args) throws Exception {
        try {
            return (T) await(sent, deadline);
        } catch (ExecutionException e) {
            if (!RedisFailures.isNoScript(e.getCause())) {
                throw unwrap(e);
            }
        }
        resent[0] = true;
        try {
            return (T) await(commands.eval(script.text(), ScriptOutputType.MULTI, keys, args), deadline);
        } catch (ExecutionException e) {
            throw unwrap(e);
        }
    }

    /** The result of {@code future} by {@code deadline}; a command not answered by then is cancelled. */
    static <T> T await(RedisFuture<T> future, long deadline) throws Exception {
        try {
            return future.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            // not sent yet (the connection is down): it never will be. Sent: the server decides it, and the store
            // reads back what it did
            future.cancel(false);
            throw e;
        }
    }

    private static Exception unwrap(ExecutionException e) {
        return e.getCause() instanceof Exception cause ? cause : e;
    }
}
