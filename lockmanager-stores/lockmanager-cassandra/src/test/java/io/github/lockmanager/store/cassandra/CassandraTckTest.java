package io.github.lockmanager.store.cassandra;

import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.testing.StoreTck;

class CassandraTckTest extends StoreTck {
    private static CassandraLockStore store;

    @Override
    protected synchronized LockStore store() {
        if (store == null) {
            store = CassandraCluster.store("lockmanager_tck");
        }
        return store;
    }
}
