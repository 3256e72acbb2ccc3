package io.github.lockmanager.store.redis;

import io.github.lockmanager.testing.PackageStructure;
import org.junit.jupiter.api.Test;

/**
 * The store's package is one-way: its helpers never refer back to {@link RedisLockStore}, which alone puts them
 * together, and no class of it is on a dependency cycle; no source of it grows past what one job needs.
 */
class RedisStructureTest {
    @Test
    void theStoreIsOneWayAndItsClassesSmall() {
        PackageStructure.of(RedisLockStore.class).assertNoCycles().assertOnlyTheseUseTheStore("RedisLockData")
                .assertNoSourceLongerThan(400);
    }
}
