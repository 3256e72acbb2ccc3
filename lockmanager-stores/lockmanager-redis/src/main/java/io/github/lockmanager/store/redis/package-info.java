/**
 * Locks in Redis or Valkey, one hash per key, decided by server-side scripts:
 * {@link io.github.lockmanager.store.redis.RedisLockStore}; the rest (scripts, layout, batches, the release listener)
 * is package-private.
 */
package io.github.lockmanager.store.redis;
