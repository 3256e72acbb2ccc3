package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.testing.PackageStructure;
import org.junit.jupiter.api.Test;

/**
 * The store's package is one-way: its helpers never refer back to {@link JdbcLockStore}, which alone puts them together,
 * and no class of it is on a dependency cycle; no source of it grows past what one job needs.
 */
class JdbcStructureTest {
    @Test
    void theStoreIsOneWayAndItsClassesSmall() {
        PackageStructure.of(JdbcLockStore.class).assertNoCycles().assertOnlyTheseUseTheStore()
                .assertNoSourceLongerThan(400);
    }
}
