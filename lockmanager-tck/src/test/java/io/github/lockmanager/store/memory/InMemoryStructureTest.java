package io.github.lockmanager.store.memory;

import io.github.lockmanager.testing.PackageStructure;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

/**
 * The in-memory store's package is one-way: the holder chains, a key's states, the key table and the wall-clock
 * stamps never refer back to {@link InMemoryLockStore}, which alone puts them together; no class of it is on a
 * dependency cycle, and no source grows past what one job needs.
 */
class InMemoryStructureTest {
    @Test
    void theStoreIsOneWayAndItsClassesSmall() {
        PackageStructure.of(InMemoryLockStore.class).assertNoCycles().assertOnlyTheseUseTheStore()
                .assertNoSourceLongerThan(400, Path.of("..", "lockmanager-impl", "src", "main", "java"));
    }
}
