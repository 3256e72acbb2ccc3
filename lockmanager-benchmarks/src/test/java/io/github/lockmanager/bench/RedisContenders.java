package io.github.lockmanager.bench;

import io.github.lockmanager.store.redis.RedisLockStore;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

import java.net.URI;
import java.time.Duration;

/** The contenders of {@link PeerBench} on the machine's Redis, each a node with its own client. */
final class RedisContenders {
    private static final Duration LEASE = Duration.ofMinutes(1);

    private RedisContenders() {
    }

    /** Ours, on the Redis store: woken across nodes by the release's message. */
    static final class Ours extends ManagerContender {
        private final RedisLockStore store;

        Ours(String node, String client) throws Exception {
            this(RedisLockStore.builder(Contenders.REDIS_URL).keyPrefix("bench-peers:").build(), node, client);
        }

        private Ours(RedisLockStore store, String node, String client) throws Exception {
            super(store, node, client);
            this.store = store;
            // the benchmark's server has no locks of an earlier life to protect (it may have started moments ago);
            // every grant still reads the quarantine's marker, as by default
            store.endRestartQuarantine();
        }

        @Override
        public long roundTrips() {
            return -1;
        }

        @Override
        public void close() throws Exception {
            super.close();
            store.close();
        }
    }

    /** A Redisson client of the machine's Redis at Redisson's defaults (its connection pool included), as users get it. */
    static RedissonClient redisson() {
        Config config = new Config();
        config.useSingleServer().setAddress(Contenders.REDIS_URL);
        return Redisson.create(config);
    }

    /** Redisson's {@code RFencedLock}: its only lock that hands out a fencing token. */
    static final class RedissonFenced implements Contender {
        private final RedissonClient client = redisson();

        @Override
        public String name() {
            return "Redisson RFencedLock";
        }

        private RFencedLock lock(String key) {
            return client.getFencedLock(key);
        }

        @Override
        public boolean tryLock(String key) {
            return lock(key).tryLockAndGetToken() != null;
        }

        @Override
        public void unlock(String key) {
            lock(key).unlock();
        }

        @Override
        public void lockWaiting(String key, Duration interval) {
            lock(key).lockAndGetToken();
        }

        @Override
        public long roundTrips() {
            return -1;
        }

        @Override
        public void close() {
            client.shutdown();
        }
    }

    /** Spring Integration's {@code RedisLockRegistry}, on Spring Data Redis' Lettuce connection factory, as configured by default. */
    static final class SpringIntegration extends RegistryContender {
        private final LettuceConnectionFactory factory;
        private final RedisLockRegistry registry;

        SpringIntegration(String registryKey) {
            this(factory(), registryKey);
        }

        private SpringIntegration(LettuceConnectionFactory factory, String registryKey) {
            this(factory, new RedisLockRegistry(factory, registryKey, LEASE.toMillis()));
        }

        private SpringIntegration(LettuceConnectionFactory factory, RedisLockRegistry registry) {
            super("Spring Integration RedisLockRegistry", registry, registry::setIdleBetweenTries);
            this.factory = factory;
            this.registry = registry;
        }

        private static LettuceConnectionFactory factory() {
            URI uri = URI.create(Contenders.REDIS_URL);
            LettuceConnectionFactory factory = new LettuceConnectionFactory(
                    new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
            factory.afterPropertiesSet();
            factory.start();
            return factory;
        }

        @Override
        public long roundTrips() {
            return -1;
        }

        @Override
        public void close() throws Exception {
            registry.destroy();
            factory.destroy();
        }
    }
}
