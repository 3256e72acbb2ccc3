/**
 * The store SPI, for those who write a store: {@link io.github.lockmanager.spi.LockStore} and the values it
 * takes and answers. A store only speaks its database; leases, threads, re-entry and renewal belong to the manager.
 * The contract suite in {@code lockmanager-tck} checks a store against every rule stated here.
 */
package io.github.lockmanager.spi;
