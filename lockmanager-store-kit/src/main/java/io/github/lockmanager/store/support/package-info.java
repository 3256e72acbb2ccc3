/**
 * The store author's kit: settings and retries every store shares ({@link
 * io.github.lockmanager.store.support.StoreBuilder}, {@link io.github.lockmanager.store.support.RetryPolicy}),
 * decorators, and the rules every store follows, written once: fencing tokens that rise across a key's lives
 * ({@link io.github.lockmanager.store.support.FencingEpoch}), the bookkeeping of holders kept apart from a key's
 * record ({@link io.github.lockmanager.store.support.HolderRegistry}, {@link
 * io.github.lockmanager.store.support.HolderMarks}) and data kept in a lock's own record ({@link
 * io.github.lockmanager.store.support.DataUnderLock}), so that a store writes only its database's calls.
 */
package io.github.lockmanager.store.support;
