package io.github.lockmanager.store.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.awaitility.Awaitility.await;

/** A Redis Cluster of three masters (no replicas) this test starts on loopback ports, with Debian's redis-cli. */
final class RedisCluster implements AutoCloseable {
    private final List<RedisProcess> masters = new ArrayList<>();

    static RedisCluster start() throws IOException, InterruptedException {
        RedisCluster cluster = new RedisCluster();
        List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        for (int i = 0; i < 3; i++) {
            RedisProcess master = RedisProcess.launch("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                    "--cluster-node-timeout", "5000");
            cluster.masters.add(master);
            create.add("127.0.0.1:" + master.port());
        }
        create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
        Process created = new ProcessBuilder(create).redirectErrorStream(true).start();
        String output = new String(created.getInputStream().readAllBytes());
        if (created.waitFor() != 0) {
            cluster.close();
            throw new IllegalStateException("redis-cli --cluster create failed: " + output);
        }
        for (RedisProcess master : cluster.masters) {
            RedisClient probe = RedisClient.create(master.uri());
            try (StatefulRedisConnection<String, String> c = probe.connect()) {
                await().atMost(Duration.ofSeconds(30)).until(() -> c.sync().clusterInfo().contains("cluster_state:ok"));
            } finally {
                probe.shutdown();
            }
        }
        return cluster;
    }

    /** The URIs of the masters, any of which leads a cluster client to all. */
    String[] uris() {
        return masters.stream().map(RedisProcess::uri).toArray(String[]::new);
    }

    @Override
    public void close() throws InterruptedException {
        for (RedisProcess master : masters) {
            master.close();
        }
    }
}
