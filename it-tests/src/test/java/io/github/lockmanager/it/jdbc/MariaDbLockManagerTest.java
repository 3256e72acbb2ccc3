package io.github.lockmanager.it.jdbc;

import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.testing.LockManagerContract;

/** The engine's behaviour on MariaDb. */
class MariaDbLockManagerTest extends LockManagerContract {
    @Override
    protected LockStore store() {
        return Database.MARIADB.contractStore();
    }
}
