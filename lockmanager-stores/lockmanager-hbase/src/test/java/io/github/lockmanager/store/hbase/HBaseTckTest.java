package io.github.lockmanager.store.hbase;

import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.testing.StoreTck;

class HBaseTckTest extends StoreTck {
    @Override
    protected LockStore store() {
        return HBaseCluster.store("lockmanager_tck");
    }
}
