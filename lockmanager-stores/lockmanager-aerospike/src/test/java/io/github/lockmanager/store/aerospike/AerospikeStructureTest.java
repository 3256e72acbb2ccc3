package io.github.lockmanager.store.aerospike;

import io.github.lockmanager.testing.PackageStructure;
import org.junit.jupiter.api.Test;

/**
 * The store's package is one-way: its helpers never refer back to {@link AerospikeLockStore}, which alone puts them together,
 * and no class of it is on a dependency cycle; no source of it grows past what one job needs.
 */
class AerospikeStructureTest {
    @Test
    void theStoreIsOneWayAndItsClassesSmall() {
        PackageStructure.of(AerospikeLockStore.class).assertNoCycles().assertOnlyTheseUseTheStore("AerospikeRecordData")
                .assertNoSourceLongerThan(400);
    }
}
