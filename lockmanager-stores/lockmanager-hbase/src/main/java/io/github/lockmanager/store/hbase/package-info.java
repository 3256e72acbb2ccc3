/**
 * Locks in an HBase table, a row per key: {@link io.github.lockmanager.store.hbase.HBaseLockStore} and
 * {@link io.github.lockmanager.store.hbase.HBaseRowData} (data in the lock's own row).
 */
package io.github.lockmanager.store.hbase;
