package io.github.lockmanager.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.lockmanager.store.jdbc.JdbcLockStore;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

/** The contenders of {@link PeerBench}, each a node with a pool of its own on the same database (or Redis). */
final class Contenders {
    static final String REDIS_URL = System.getProperty("bench.redis.url", "redis://127.0.0.1:6379");
    private static final Duration LEASE = Duration.ofMinutes(1);

    private Contenders() {
    }

    /** A database the JDBC contenders share, reached with its driver's default settings, as users get it. */
    enum Database {
        POSTGRESQL("PostgreSQL", System.getProperty("bench.postgres.url", "jdbc:postgresql://127.0.0.1:5432/test"),
                System.getProperty("bench.postgres.user", "postgres"), "TIMESTAMP", "TIMESTAMP"),
        MARIADB("MariaDB", System.getProperty("bench.mariadb.url", "jdbc:mariadb://127.0.0.1:3306/test"),
                System.getProperty("bench.mariadb.user", "root"), "TIMESTAMP(3)", "DATETIME(6)");

        final String title;
        private final String url;
        private final String user;

        /** ShedLock's column type for its times: its documentation gives TIMESTAMP(3) on MySQL and MariaDB. */
        private final String timestamp;
        /** Spring Integration's column type for its times: its schema scripts give DATETIME(6) on MySQL. */
        private final String springTimestamp;

        Database(String title, String url, String user, String timestamp, String springTimestamp) {
            this.title = title;
            this.url = url;
            this.user = user;
            this.timestamp = timestamp;
            this.springTimestamp = springTimestamp;
        }

        /** Creates the peers' tables as their documentation gives them, and ours, fresh for each run. */
        void createTables() throws Exception {
            try (HikariDataSource pool = pool("setup", 1); Connection c = pool.getConnection();
                 Statement s = c.createStatement()) {
                for (String table : new String[]{"INT_LOCK", "shedlock", "bench_peer_locks"}) {
                    s.execute("DROP TABLE IF EXISTS " + table);
                }
                s.execute("CREATE TABLE IF NOT EXISTS INT_LOCK (LOCK_KEY CHAR(36) NOT NULL, REGION VARCHAR(100) NOT NULL, "
                        + "CLIENT_ID CHAR(36), CREATED_DATE " + springTimestamp + " NOT NULL, EXPIRED_AFTER " + springTimestamp
                        + " NOT NULL, CONSTRAINT INT_LOCK_PK PRIMARY KEY (LOCK_KEY, REGION))");
                s.execute("CREATE TABLE IF NOT EXISTS shedlock (name VARCHAR(64) NOT NULL PRIMARY KEY, lock_until "
                        + timestamp + " NOT NULL, locked_at " + timestamp + " NOT NULL, locked_by VARCHAR(255) NOT NULL)");
            }
        }

        HikariDataSource pool(String name, int size) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(url);
            config.setUsername(user);
            config.setMaximumPoolSize(size);
            config.setPoolName("peers-" + name);
            return new HikariDataSource(config);
        }
    }

    /** Ours, on the JDBC store; round trips counted on its connections. */
    static final class Ours extends ManagerContender {
        private final HikariDataSource pool;
        private final CountingDataSource counted;
        private final JdbcLockStore store;

        Ours(Database database, String node, String client) throws Exception {
            this(database.pool("ours-" + node, 10), node, client);
        }

        private Ours(HikariDataSource pool, String node, String client) throws Exception {
            this(pool, new CountingDataSource(pool), node, client);
        }

        private Ours(HikariDataSource pool, CountingDataSource counted, String node, String client) throws Exception {
            this(pool, counted, JdbcLockStore.builder(counted.dataSource()).tableName("bench_peer_locks").build(), node,
                    client);
        }

        private Ours(HikariDataSource pool, CountingDataSource counted, JdbcLockStore store, String node, String client)
                throws Exception {
            super(store, node, client);
            this.pool = pool;
            this.counted = counted;
            this.store = store;
        }

        @Override
        public long roundTrips() {
            return counted.roundTrips();
        }

        @Override
        public void close() throws Exception {
            super.close();
            store.close();
            pool.close();
        }
    }

    /** Spring Integration's {@code JdbcLockRegistry} with its {@code DefaultLockRepository}. */
    static final class SpringIntegration extends RegistryContender {
        private final HikariDataSource pool;
        private final CountingDataSource counted;
        private final DefaultLockRepository repository;

        SpringIntegration(Database database, String node, String region) {
            this(database.pool("spring-" + node, 10), node, region);
        }

        private SpringIntegration(HikariDataSource pool, String node, String region) {
            this(pool, new CountingDataSource(pool), node, region);
        }

        private SpringIntegration(HikariDataSource pool, CountingDataSource counted, String node, String region) {
            this(pool, counted, repository(counted.dataSource(), node, region));
        }

        private SpringIntegration(HikariDataSource pool, CountingDataSource counted, DefaultLockRepository repository) {
            this(pool, counted, repository, new JdbcLockRegistry(repository, LEASE));
        }

        private SpringIntegration(HikariDataSource pool, CountingDataSource counted, DefaultLockRepository repository,
                                  JdbcLockRegistry registry) {
            super("Spring Integration JdbcLockRegistry", registry, registry::setIdleBetweenTries);
            this.pool = pool;
            this.counted = counted;
            this.repository = repository;
        }

        private static DefaultLockRepository repository(DataSource dataSource, String node, String region) {
            DefaultLockRepository repository = new DefaultLockRepository(dataSource, node + "-" + region);
            repository.setRegion(region);
            repository.setTransactionManager(new DataSourceTransactionManager(dataSource));
            repository.setCheckDatabaseOnStart(false);
            repository.afterPropertiesSet();
            repository.afterSingletonsInstantiated();
            return repository;
        }

        @Override
        public long roundTrips() {
            return counted.roundTrips();
        }

        @Override
        public void close() {
            repository.close();
            pool.close();
        }
    }

    /**
     * ShedLock on one of its providers: a lock is taken or refused at once; a caller that must wait polls (ShedLock
     * never waits). A subclass gives the provider, names it and counts its round trips.
     */
    abstract static class ShedLockSide implements Contender {
        private final LockProvider provider;
        private final Map<String, SimpleLock> held = new ConcurrentHashMap<>();

        ShedLockSide(LockProvider provider) {
            this.provider = provider;
        }

        @Override
        public boolean tryLock(String key) {
            Optional<SimpleLock> lock = provider.lock(new LockConfiguration(Instant.now(), key, LEASE, Duration.ZERO));
            lock.ifPresent(l -> held.put(key, l));
            return lock.isPresent();
        }

        @Override
        public void unlock(String key) {
            held.remove(key).unlock();
        }

        @Override
        public void lockWaiting(String key, Duration interval) throws Exception {
            Contender.pollFor(this, key, interval);
        }
    }

    /** ShedLock's JDBC provider, with the database's time, as its documentation recommends. */
    static final class ShedLock extends ShedLockSide {
        private final HikariDataSource pool;
        private final CountingDataSource counted;

        ShedLock(Database database, String node) {
            this(database.pool("shedlock-" + node, 10), node);
        }

        private ShedLock(HikariDataSource pool, String node) {
            this(pool, new CountingDataSource(pool), node);
        }

        private ShedLock(HikariDataSource pool, CountingDataSource counted, String node) {
            super(new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                    .withJdbcTemplate(new JdbcTemplate(counted.dataSource())).withLockedByValue(node).usingDbTime()
                    .build()));
            this.pool = pool;
            this.counted = counted;
        }

        @Override
        public String name() {
            return "ShedLock JdbcTemplateLockProvider";
        }

        @Override
        public long roundTrips() {
            return counted.roundTrips();
        }

        @Override
        public void close() {
            pool.close();
        }
    }

    /**
     * Redisson's {@code RLock} on Redis: another store, shown as the reference many users know; or another lock of
     * Redisson's of that interface ({@code RFairLock}, figure 16).
     */
    static final class RedissonLock implements Contender {
        private final RedissonClient client;
        private final String name;
        private final BiFunction<RedissonClient, String, RLock> lock;

        RedissonLock() {
            this("Redisson RLock (Redis)", RedissonClient::getLock);
        }

        RedissonLock(String name, BiFunction<RedissonClient, String, RLock> lock) {
            this.client = RedisContenders.redisson();
            this.name = name;
            this.lock = lock;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public boolean tryLock(String key) {
            return lock.apply(client, key).tryLock();
        }

        @Override
        public void unlock(String key) {
            lock.apply(client, key).unlock();
        }

        @Override
        public void lockWaiting(String key, Duration interval) {
            // Redisson wakes its waiters through pub/sub; the interval does not apply
            lock.apply(client, key).lock();
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
}
