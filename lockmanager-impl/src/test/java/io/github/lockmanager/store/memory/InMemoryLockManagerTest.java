package io.github.lockmanager.store.memory;

import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.testing.LockManagerContract;

class InMemoryLockManagerTest extends LockManagerContract {
    private final InMemoryLockStore store = new InMemoryLockStore();

    @Override
    protected LockStore store() {
        return store;
    }
}
