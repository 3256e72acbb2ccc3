package io.github.lockmanager.store.redis;

import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.testing.StoreTck;

class RedisTckTest extends StoreTck {
    private static final RedisLockStore STORE = RedisServer.store("lockmanager-tck:");

    @Override
    protected LockStore store() {
        return STORE;
    }
}
