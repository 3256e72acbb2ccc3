/**
 * Locks in Aerospike, one record per key: {@link io.github.lockmanager.store.aerospike.AerospikeLockStore} and
 * {@link io.github.lockmanager.store.aerospike.AerospikeRecordData} (data in the lock's own record); the rest is the
 * layout and the server-side expressions, package-private.
 */
package io.github.lockmanager.store.aerospike;
