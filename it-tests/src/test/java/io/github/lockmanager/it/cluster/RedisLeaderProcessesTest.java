package io.github.lockmanager.it.cluster;

/** {@link LeaderProcessesTest} on Redis. */
class RedisLeaderProcessesTest extends LeaderProcessesTest {
    @Override
    Stores.Target target() {
        return Stores.redis("leaders");
    }
}
