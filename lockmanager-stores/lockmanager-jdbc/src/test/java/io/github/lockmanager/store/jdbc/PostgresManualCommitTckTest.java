package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.testing.StoreTck;

/** The TCK on a pool whose connections come with auto-commit off: every write of the store must still commit. */
class PostgresManualCommitTckTest extends StoreTck {
    @Override
    protected LockStore store() {
        return Database.POSTGRES.manualCommitTckStore();
    }
}
