package io.github.lockmanager.store.memory;

import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.testing.StoreTck;

class InMemoryTckTest extends StoreTck {
    private static final InMemoryLockStore STORE = new InMemoryLockStore();

    @Override
    protected LockStore store() {
        return STORE;
    }
}
