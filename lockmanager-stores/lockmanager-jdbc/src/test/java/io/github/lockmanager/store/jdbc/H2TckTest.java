package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.testing.StoreTck;

class H2TckTest extends StoreTck {
    @Override
    protected LockStore store() {
        return Database.H2.tckStore();
    }
}
