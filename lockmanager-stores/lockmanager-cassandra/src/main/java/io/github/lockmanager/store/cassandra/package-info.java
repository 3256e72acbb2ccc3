/**
 * Locks in an Apache Cassandra table, decided by lightweight transactions: {@link
 * io.github.lockmanager.store.cassandra.CassandraLockStore}.
 */
package io.github.lockmanager.store.cassandra;
