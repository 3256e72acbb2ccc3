package io.github.lockmanager.store.aerospike;

import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.testing.StoreTck;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(AerospikeServer.class)
class AerospikeTckTest extends StoreTck {
    @Override
    protected LockStore store() {
        return AerospikeServer.store("tck");
    }
}
