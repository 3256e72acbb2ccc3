/**
 * Locks in Redis or Valkey, one hash per key, decided by server-side scripts:
 * {@link io.github.lockmanager.store.redis.RedisLockStore} and {@link io.github.lockmanager.store.redis.RedisLockData}
 * (data in the lock's own hash); the rest (scripts, layout, batches, the release listener)
 * is package-private.
 */
package io.github.lockmanager.store.redis;
