package io.github.lockmanager.it.cluster;

import io.github.lockmanager.spi.LockStore;

import java.net.URI;

/** The outage tests on the machine's Redis ({@code -Dredis.uri}, default {@code redis://127.0.0.1:6379}). */
class RedisOutageTest extends ProxiedOutageContract {
    private static final String PREFIX = "lockmanager_outage";

    @Override
    String name() {
        return "Redis";
    }

    @Override
    int serverPort() {
        return URI.create(System.getProperty("redis.uri", "redis://127.0.0.1:6379")).getPort();
    }

    @Override
    LockStore storeThrough(int port) throws Exception {
        return ClusterNode.redis("redis://127.0.0.1:" + port, PREFIX);
    }

    @Override
    Stores.Target direct() {
        return Stores.redis(PREFIX);
    }
}
