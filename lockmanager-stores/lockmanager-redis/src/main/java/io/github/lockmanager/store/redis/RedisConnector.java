package io.github.lockmanager.store.redis;

import io.github.lockmanager.internal.Require;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisServerCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Opens the store's connections through a Lettuce client: one server (or the master a Sentinel names) or a cluster.
 * A client the store made itself from a URI is shut down with the store; one the application gave stays open. A
 * connection is waited for at most the time given (the store's operation timeout): Lettuce's own handshake waits up
 * to the URI's timeout, 60 s by default, for a server that accepts and never answers. A connection that comes after
 * its caller gave up is closed. Only a client given without a URI connects by its own timeout.
 */
abstract class RedisConnector {
    private final boolean ownsClient;

    private RedisConnector(boolean ownsClient) {
        this.ownsClient = ownsClient;
    }

    static RedisConnector of(RedisClient client, RedisURI uri, boolean ownsClient) {
        return new Single(client, uri, ownsClient);
    }

    static RedisConnector of(RedisClusterClient client, boolean ownsClient) {
        return new Cluster(client, ownsClient);
    }

    abstract StatefulConnection<String, String> connect(long timeoutMillis) throws Exception;

    abstract RedisClusterAsyncCommands<String, String> commands(StatefulConnection<String, String> connection);

    abstract StatefulRedisPubSubConnection<String, String> connectPubSub(long timeoutMillis) throws Exception;

    /** The connection {@code connecting} makes within {@code timeoutMillis}; one that comes later is closed. */
    static <C extends StatefulConnection<?, ?>> C within(CompletionStage<C> connecting, long timeoutMillis)
            throws Exception {
        CompletableFuture<C> future = connecting.toCompletableFuture();
        try {
            return future.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException late) {
            future.thenAccept(StatefulConnection::closeAsync);
            throw new TimeoutException("no connection within " + timeoutMillis + " ms (the server accepts but does not "
                    + "answer, or is slow to)");
        } catch (InterruptedException interrupted) {
            future.thenAccept(StatefulConnection::closeAsync);
            throw interrupted;
        } catch (ExecutionException failed) {
            throw failed.getCause() instanceof Exception cause ? cause : failed;
        }
    }

    /** {@code INFO server} and {@code INFO memory} of every server that takes writes, each with its address. */
    abstract List<String[]> infos(StatefulConnection<String, String> connection);

    /** What {@link #infos} puts before a setting's name when it adds what {@code CONFIG GET} tells of it. */
    static final String CONFIG = "config_";

    /**
     * {@code INFO server} and {@code INFO memory}, and as lines of the same form the persistence settings a restart
     * depends on, where the server allows {@code CONFIG GET} (managed services often rename it).
     */
    static String info(RedisServerCommands<String, String> sync) {
        StringBuilder info = new StringBuilder(sync.info("server")).append('\n').append(sync.info("memory"));
        try {
            sync.configGet("appendonly", "appendfsync").forEach((name, value) ->
                    info.append('\n').append(CONFIG).append(name).append(':').append(value));
        } catch (RedisCommandExecutionException refused) {
            // not allowed: the store assumes a restart may lose writes
        }
        return info.toString();
    }

    abstract boolean isCluster();

    /** @throws IllegalArgumentException if {@code redisUri} is not a Redis URI, saying which forms are */
    static RedisURI parse(String redisUri) {
        Require.notEmpty(redisUri, "redisUri");
        try {
            return RedisURI.create(redisUri);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("redisUri is not a Redis URI (redis://host:port/db, rediss://..., "
                    + "redis-sentinel://host:port#master): " + e.getMessage(), e);
        }
    }

    /** Where {@code uri} leads, without its credentials. */
    static String describe(RedisURI uri) {
        if (uri == null) {
            return "the address its client was made for";
        }
        if (uri.getSentinelMasterId() != null) {
            return "master '" + uri.getSentinelMasterId() + "' of " + uri.getSentinels().size() + " Sentinel(s)";
        }
        return uri.getHost() + ":" + uri.getPort() + "/" + uri.getDatabase();
    }

    abstract void shutdownClient();

    /** Shuts the client down if the store made it. */
    final void close() {
        if (ownsClient) {
            shutdownClient();
        }
    }

    private static final class Single extends RedisConnector {
        private final RedisClient client;
        private final RedisURI uri;

        Single(RedisClient client, RedisURI uri, boolean ownsClient) {
            super(ownsClient);
            this.client = client;
            this.uri = uri;
        }

        @Override
        StatefulConnection<String, String> connect(long timeoutMillis) throws Exception {
            return uri == null ? client.connect() : within(client.connectAsync(StringCodec.UTF8, uri), timeoutMillis);
        }

        @Override
        RedisClusterAsyncCommands<String, String> commands(StatefulConnection<String, String> connection) {
            return ((StatefulRedisConnection<String, String>) connection).async();
        }

        @Override
        StatefulRedisPubSubConnection<String, String> connectPubSub(long timeoutMillis) throws Exception {
            return uri == null ? client.connectPubSub()
                    : within(client.connectPubSubAsync(StringCodec.UTF8, uri), timeoutMillis);
        }

        @Override
        List<String[]> infos(StatefulConnection<String, String> connection) {
            var sync = ((StatefulRedisConnection<String, String>) connection).sync();
            return List.<String[]>of(new String[] {describe(uri), info(sync)});
        }

        @Override
        boolean isCluster() {
            return false;
        }

        @Override
        void shutdownClient() {
            client.shutdown();
        }
    }

    private static final class Cluster extends RedisConnector {
        private final RedisClusterClient client;

        Cluster(RedisClusterClient client, boolean ownsClient) {
            super(ownsClient);
            this.client = client;
        }

        @Override
        StatefulConnection<String, String> connect(long timeoutMillis) throws Exception {
            // the asynchronous connect needs the cluster's topology first, which the synchronous one loads itself
            return within(client.refreshPartitionsAsync().thenCompose(loaded -> client.connectAsync(StringCodec.UTF8)),
                    timeoutMillis);
        }

        @Override
        RedisClusterAsyncCommands<String, String> commands(StatefulConnection<String, String> connection) {
            return ((StatefulRedisClusterConnection<String, String>) connection).async();
        }

        @Override
        StatefulRedisPubSubConnection<String, String> connectPubSub(long timeoutMillis) throws Exception {
            return within(client.refreshPartitionsAsync().thenCompose(loaded ->
                    client.connectPubSubAsync(StringCodec.UTF8)), timeoutMillis);
        }

        @Override
        List<String[]> infos(StatefulConnection<String, String> connection) {
            var cluster = (StatefulRedisClusterConnection<String, String>) connection;
            List<String[]> infos = new ArrayList<>();
            for (RedisClusterNode node : cluster.getPartitions()) {
                if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.is(RedisClusterNode.NodeFlag.FAIL)) {
                    var sync = cluster.getConnection(node.getNodeId()).sync();
                    infos.add(new String[] {node.getUri().getHost() + ":" + node.getUri().getPort(), info(sync)});
                }
            }
            return infos;
        }

        @Override
        boolean isCluster() {
            return true;
        }

        @Override
        void shutdownClient() {
            client.shutdown();
        }
    }
}
