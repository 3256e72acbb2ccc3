package io.github.lockmanager.it.hbase;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.hbase.HBaseLockStore;
import io.github.lockmanager.testing.LockManagerContract;
import org.junit.jupiter.api.BeforeAll;

/** The engine's behaviour on a real HBase. */
class HBaseLockManagerTest extends LockManagerContract {
    private static HBaseLockStore store;

    @BeforeAll
    static void createStore() throws LockManagerException {
        store = HBaseLockStore.builder(HBaseCluster.connection()).tableName("lockmanager_contract").build();
        store.initialize();
    }

    @Override
    protected LockStore store() {
        return store;
    }
}
