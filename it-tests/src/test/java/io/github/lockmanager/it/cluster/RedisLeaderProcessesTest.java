package io.github.lockmanager.it.cluster;

import java.util.Map;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@link LeaderProcessesTest} on Redis; its restart loses every lock (a server of the test's own, no persistence). */
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

    /**
     * A server of the test's own, killed and started again empty at once; grants wait the restart quarantine after
     * the restart, here the lease rather than the default 60 s.
     */
    @Override
    OwnServer ownServer() throws Exception {
        RedisServerProcess redis = new RedisServerProcess();
        return new OwnServer(redis.port, Map.of("node.redis.quarantine", Long.toString(LEASE)), true, redis::kill,
                redis::start, redis::close);
    }
}
