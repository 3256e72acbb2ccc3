/**
 * The store author's kit: settings and retries every store shares ({@link
 * io.github.lockmanager.store.support.StoreBuilder}, {@link io.github.lockmanager.store.support.RetryPolicy}),
 * decorators, and the rules of data kept in a lock's own record ({@link
 * io.github.lockmanager.store.support.DataUnderLock}), so that a store writes only its database's calls.
 */
package io.github.lockmanager.store.support;
