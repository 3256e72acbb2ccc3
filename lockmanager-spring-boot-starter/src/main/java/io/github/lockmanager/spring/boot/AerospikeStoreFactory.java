package io.github.lockmanager.spring.boot;

import com.aerospike.client.IAerospikeClient;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.aerospike.AerospikeLockStore;

/** Builds the Aerospike store; loaded only when {@code lockmanager-aerospike} is on the class path. */
final class AerospikeStoreFactory {
    private AerospikeStoreFactory() {
    }

    static LockStore build(Object client, LockManagerProperties properties) {
        LockManagerProperties.Aerospike settings = properties.getAerospike();
        AerospikeLockStore.Builder builder = AerospikeLockStore.builder((IAerospikeClient) client);
        Settings.apply("aerospike.namespace", settings.getNamespace(), builder::namespace);
        Settings.apply("aerospike.set-suffix", settings.getSetSuffix(), builder::setSuffix);
        builder.acceptTwoHoldersAfterRestart(settings.isAcceptTwoHoldersAfterRestart());
        builder.farmIds(settings.getFarmIds().toArray(String[]::new));
        StoreSelection.applyCommon(builder, properties);
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            // the set names that build() checks are made of the suffix and each farm id
            throw Settings.invalid(settings.getFarmIds().isEmpty() ? "aerospike.set-suffix" : "aerospike.farm-ids",
                    "set-suffix=" + settings.getSetSuffix() + ", farm-ids=" + settings.getFarmIds(), e.getMessage());
        }
    }
}
