package io.github.lockmanager.it.cluster;

/** The process faults on the machine's Redis ({@code -Dredis.uri}, default {@code redis://127.0.0.1:6379}). */
class RedisProcessFaultTest extends ProcessFaultTest {
    @Override
    Stores.Target target() {
        return Stores.redis("lockmanager_faults");
    }
}
