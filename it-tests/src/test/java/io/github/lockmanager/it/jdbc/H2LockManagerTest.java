package io.github.lockmanager.it.jdbc;

import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.testing.LockManagerContract;

/** The engine's behaviour on H2. */
class H2LockManagerTest extends LockManagerContract {
    @Override
    protected LockStore store() {
        return Database.H2.contractStore();
    }
}
