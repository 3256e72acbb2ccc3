package io.github.lockmanager.store.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import java.util.ArrayList;
import java.util.List;

/**
 * Opens the store's connections through a Lettuce client: one server (or the master a Sentinel names) or a cluster.
 * A client the store made itself from a URI is shut down with the store; one the application gave stays open.
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

    abstract StatefulConnection<String, String> connect();

    abstract RedisClusterAsyncCommands<String, String> commands(StatefulConnection<String, String> connection);

    abstract StatefulRedisPubSubConnection<String, String> connectPubSub();

    /** {@code INFO server} and {@code INFO memory} of every server that takes writes, each with its address. */
    abstract List<String[]> infos(StatefulConnection<String, String> connection);

    abstract boolean isCluster();

    /** Where {@code uri} leads, without its credentials. */
    static String describe(RedisURI uri) {
        if (uri == null) {
            return "(the client's default)";
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
        StatefulConnection<String, String> connect() {
            return uri == null ? client.connect() : client.connect(uri);
        }

        @Override
        RedisClusterAsyncCommands<String, String> commands(StatefulConnection<String, String> connection) {
            return ((StatefulRedisConnection<String, String>) connection).async();
        }

        @Override
        StatefulRedisPubSubConnection<String, String> connectPubSub() {
            return uri == null ? client.connectPubSub() : client.connectPubSub(uri);
        }

        @Override
        List<String[]> infos(StatefulConnection<String, String> connection) {
            var sync = ((StatefulRedisConnection<String, String>) connection).sync();
            return List.<String[]>of(new String[] {describe(uri),
                    sync.info("server") + "\n" + sync.info("memory")});
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
        StatefulConnection<String, String> connect() {
            return client.connect();
        }

        @Override
        RedisClusterAsyncCommands<String, String> commands(StatefulConnection<String, String> connection) {
            return ((StatefulRedisClusterConnection<String, String>) connection).async();
        }

        @Override
        StatefulRedisPubSubConnection<String, String> connectPubSub() {
            return client.connectPubSub();
        }

        @Override
        List<String[]> infos(StatefulConnection<String, String> connection) {
            var cluster = (StatefulRedisClusterConnection<String, String>) connection;
            List<String[]> infos = new ArrayList<>();
            for (RedisClusterNode node : cluster.getPartitions()) {
                if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.is(RedisClusterNode.NodeFlag.FAIL)) {
                    var sync = cluster.getConnection(node.getNodeId()).sync();
                    infos.add(new String[] {node.getUri().getHost() + ":" + node.getUri().getPort(),
                            sync.info("server") + "\n" + sync.info("memory")});
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
