package io.github.lockmanager.store.redis;

import io.github.lockmanager.LockManagerException;
import io.lettuce.core.RedisClient;

import java.time.Duration;

/**
 * The Redis server the tests of this JVM share: the one {@code -Dredis.uri} names, by default the machine's
 * {@code redis://127.0.0.1:6379} (CI starts it). Each test class keeps its locks under a prefix of its own.
 */
final class RedisServer {
    private static RedisClient client;

    private RedisServer() {
    }

    static String uri() {
        return System.getProperty("redis.uri", "redis://127.0.0.1:6379");
    }

    static synchronized RedisClient client() {
        if (client == null) {
            client = RedisClient.create(uri());
        }
        return client;
    }

    /** An initialized store whose keys start with {@code prefix}; the shared client stays open when it closes. */
    static RedisLockStore store(String prefix) {
        // the TCK asks for leases of up to a day; the server's earlier locks are the tests' own, so no quarantine
        RedisLockStore store = RedisLockStore.builder(client()).keyPrefix(prefix).restartQuarantine(Duration.ofDays(1))
                .build();
        try {
            store.initialize();
            store.endRestartQuarantine();
        } catch (LockManagerException e) {
            throw new IllegalStateException("Redis at " + uri() + " is not usable (start it, or name another with "
                    + "-Dredis.uri)", e);
        }
        return store;
    }
}
