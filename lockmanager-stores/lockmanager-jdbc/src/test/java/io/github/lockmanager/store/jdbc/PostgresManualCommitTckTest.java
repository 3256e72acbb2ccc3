package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.testing.LockModeContract;
import io.github.lockmanager.testing.LockStoreContract;
import io.github.lockmanager.testing.PermitContract;
import io.github.lockmanager.testing.RequestContract;
import io.github.lockmanager.testing.StoreTck;

/** The TCK on a pool whose connections come with auto-commit off: every write of the store must still commit. */
class PostgresManualCommitTckTest extends StoreTck {
    @Override
    protected LockStore store() {
        return Database.POSTGRES.manualCommitTckStore();
    }

    /**
     * Each kind of store call, on connections that do not commit by themselves; the engine's contracts, which make the
     * same calls in other orders, run on the main pool's TCK.
     */
    @Override
    protected boolean runs(Class<?> contract) {
        return contract == LockStoreContract.class || contract == LockModeContract.class
                || contract == PermitContract.class || contract == RequestContract.class;
    }
}
