package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.testing.StoreTck;

/** The TCK on a pool whose connections come with auto-commit off: every write of the store must still commit. */
class MariaDbManualCommitTckTest extends StoreTck {
    @Override
    protected LockStore store() {
        return Database.MARIADB.manualCommitTckStore();
    }

    /** Requests are rows written by the same statements as on the main pool: the main TCK of the database runs them. */
    @Override
    protected boolean testsRequests() {
        return false;
    }
}
