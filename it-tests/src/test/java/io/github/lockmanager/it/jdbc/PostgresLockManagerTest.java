package io.github.lockmanager.it.jdbc;

import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.testing.LockManagerContract;

/** The engine's behaviour on Postgres. */
class PostgresLockManagerTest extends LockManagerContract {
    @Override
    protected LockStore store() {
        return Database.POSTGRES.contractStore();
    }
}
