package io.github.lockmanager.it.cluster;

import java.util.Map;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@link LeaderProcessesTest} on Redis. */
class RedisLeaderProcessesTest extends LeaderProcessesTest {
    private static final int PORT = 6379;

    @Override
    Stores.Target target() {
        return Stores.redis("leaders");
    }

    @Override
    Map<String, String> throughProxy(Map<String, String> settings, int port) {
        String uri = settings.get("node.redis.uri");
        assumeTrue(uri.equals("redis://127.0.0.1:" + PORT), "the Redis is not the local default: " + uri);
        settings.put("node.redis.uri", "redis://127.0.0.1:" + port);
        return settings;
    }

    @Override
    int storePort() {
        return PORT;
    }
}
