/**
 * The contract suite a store subclasses ({@link io.github.lockmanager.testing.StoreTck}) and the checks of a store's
 * pinned-format test ({@link io.github.lockmanager.testing.StoredFormat}); the test doubles they use are in
 * {@code io.github.lockmanager.testing.support} ({@code lockmanager-test-support}).
 */
package io.github.lockmanager.testing;
