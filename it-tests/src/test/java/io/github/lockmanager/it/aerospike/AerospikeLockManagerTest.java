package io.github.lockmanager.it.aerospike;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.aerospike.AerospikeLockStore;
import io.github.lockmanager.testing.LockManagerContract;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;

/** The engine's behaviour on a real Aerospike server (skipped with a message when none is available). */
@ExtendWith(AerospikeServer.class)
class AerospikeLockManagerTest extends LockManagerContract {
    private static AerospikeLockStore store;

    @BeforeAll
    static void createStore() throws LockManagerException {
        store = AerospikeLockStore.builder(AerospikeServer.client()).namespace(AerospikeServer.namespace())
                .setSuffix("contract").build();
        store.initialize();
    }

    @Override
    protected LockStore store() {
        return store;
    }
}
