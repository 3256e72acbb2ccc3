package io.github.lockmanager.spring.boot;

import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.spring.boot.LockManagerProperties.StoreType;
import io.github.lockmanager.store.memory.InMemoryLockStore;
import io.github.lockmanager.store.support.RetryPolicy;
import io.github.lockmanager.store.support.StoreBuilder;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Picks the store of {@code lockmanager.store} and builds it on the application's client bean. Each store's own
 * classes are touched only by its factory class, so the starter runs with any subset of the store modules.
 */
final class StoreSelection {

    /** A store that works on one kind of client bean. */
    private enum Kind {
        AEROSPIKE(StoreType.AEROSPIKE, "com.aerospike.client.IAerospikeClient", "an Aerospike IAerospikeClient",
                "io.github.lockmanager.store.aerospike.AerospikeLockStore", "lockmanager-aerospike"),
        HBASE(StoreType.HBASE, "org.apache.hadoop.hbase.client.Connection", "an HBase Connection",
                "io.github.lockmanager.store.hbase.HBaseLockStore", "lockmanager-hbase"),
        REDIS(StoreType.REDIS, "io.lettuce.core.AbstractRedisClient", "a Lettuce Redis client or spring.data.redis.* "
                + "settings", "io.github.lockmanager.store.redis.RedisLockStore", "lockmanager-redis"),
        JDBC(StoreType.JDBC, "javax.sql.DataSource", "a DataSource",
                "io.github.lockmanager.store.jdbc.JdbcLockStore", "lockmanager-jdbc");

        final StoreType type;
        final String clientClass;
        final String clientName;
        final String storeClass;
        final String module;

        Kind(StoreType type, String clientClass, String clientName, String storeClass, String module) {
            this.type = type;
            this.clientClass = clientClass;
            this.clientName = clientName;
            this.storeClass = storeClass;
            this.module = module;
        }

        String property() {
            return type.name().toLowerCase(Locale.ROOT);
        }
    }

    private StoreSelection() {
    }

    static LockStore build(LockManagerProperties properties, ListableBeanFactory beans) {
        StoreType type = properties.getStore();
        if (type == StoreType.MEMORY) {
            return new InMemoryLockStore();
        }
        Kind kind = type == StoreType.AUTO ? detect(beans) : kindOf(type);
        if (!ClassUtils.isPresent(kind.storeClass, StoreSelection.class.getClassLoader())) {
            throw Settings.invalid("store", kind.property(), "the " + kind.property() + " store needs "
                    + "io.github.lockmanager:" + kind.module + " on the class path");
        }
        Object client = client(kind, beans);
        return switch (kind) {
            case JDBC -> JdbcStoreFactory.build(client, properties);
            case HBASE -> HBaseStoreFactory.build(client, properties);
            case AEROSPIKE -> AerospikeStoreFactory.build(client, properties);
            case REDIS -> RedisStoreFactory.build(client, properties, beans.getBean(Environment.class));
        };
    }

    /** Applies the settings every store's builder has. */
    static void applyCommon(StoreBuilder<?> builder, LockManagerProperties properties) {
        Settings.apply("operation-timeout", properties.getOperationTimeout(), builder::operationTimeout);
        Settings.apply("idle-record-retention", properties.getIdleRecordRetention(), builder::idleRecordRetention);
        LockManagerProperties.Retry retry = properties.getRetry();
        int set = (retry.getAttempts() != null ? 1 : 0) + (retry.getInitialBackoff() != null ? 1 : 0)
                + (retry.getMaxBackoff() != null ? 1 : 0);
        if (set == 0) {
            return;
        }
        if (set != 3) {
            throw Settings.invalid("retry", "attempts=" + retry.getAttempts() + ", initial-backoff="
                    + retry.getInitialBackoff() + ", max-backoff=" + retry.getMaxBackoff(),
                    "set attempts, initial-backoff and max-backoff together, or none of them for the store's default");
        }
        Settings.apply("retry", retry, r -> builder.retries(
                new RetryPolicy(r.getAttempts(), r.getInitialBackoff(), r.getMaxBackoff())));
    }

    private static Kind kindOf(StoreType type) {
        for (Kind kind : Kind.values()) {
            if (kind.type == type) {
                return kind;
            }
        }
        throw new IllegalArgumentException("no client store for " + type);
    }

    private static Kind detect(ListableBeanFactory beans) {
        List<Kind> found = new ArrayList<>();
        List<String> missingModules = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            if (beanNames(kind, beans).length == 0 && !(kind == Kind.REDIS && hasRedisSettings(beans))) {
                continue;
            }
            if (ClassUtils.isPresent(kind.storeClass, StoreSelection.class.getClassLoader())) {
                found.add(kind);
            } else {
                missingModules.add(kind.clientName + " (add io.github.lockmanager:" + kind.module + " to lock in it)");
            }
        }
        if (found.size() == 1) {
            return found.get(0);
        }
        if (found.isEmpty()) {
            throw Settings.invalid("store", "auto", "no store client to keep the locks in: the application has no "
                    + "IAerospikeClient, HBase Connection, Lettuce Redis client (or spring.data.redis.* settings) or "
                    + "DataSource bean with its lockmanager store module"
                    + (missingModules.isEmpty() ? "" : "; found " + String.join(", ", missingModules))
                    + ". Define one, or set lockmanager.store=memory for locks of this JVM only");
        }
        List<String> names = found.stream().map(k -> k.clientName + " (" + k.property() + ")").toList();
        throw Settings.invalid("store", "auto", "more than one store could keep the locks: " + String.join(", ", names)
                + "; set lockmanager.store to the one every node of this application uses");
    }

    private static String[] beanNames(Kind kind, ListableBeanFactory beans) {
        ClassLoader loader = StoreSelection.class.getClassLoader();
        if (!ClassUtils.isPresent(kind.clientClass, loader)) {
            return new String[0];
        }
        return beans.getBeanNamesForType(ClassUtils.resolveClassName(kind.clientClass, loader));
    }

    /** Whether the application sets where its Redis is (Spring Boot's own settings, which need no client bean). */
    private static boolean hasRedisSettings(ListableBeanFactory beans) {
        Environment environment = beans.getBean(Environment.class);
        for (String setting : List.of("url", "host", "sentinel.master", "cluster.nodes", "cluster.nodes[0]")) {
            if (environment.containsProperty("spring.data.redis." + setting)) {
                return true;
            }
        }
        return false;
    }

    /** The client bean of {@code kind}; for Redis without one, {@code null}: its store is made from the settings. */
    private static Object client(Kind kind, ListableBeanFactory beans) {
        String[] names = beanNames(kind, beans);
        if (names.length == 0 && kind == Kind.REDIS) {
            return null;
        }
        if (names.length == 0) {
            throw Settings.invalid("store", kind.property(), "the " + kind.property() + " store needs "
                    + kind.clientName + " bean, and the application has none");
        }
        ObjectProvider<?> provider = beans.getBeanProvider(
                ClassUtils.resolveClassName(kind.clientClass, StoreSelection.class.getClassLoader()));
        Object client = provider.getIfUnique();
        if (client == null) {
            throw Settings.invalid("store", kind.property(), "the application has " + names.length + " beans of "
                    + kind.clientClass + " " + List.of(names) + " and none is primary; mark the one the locks live "
                    + "in @Primary, or define the LockStore bean yourself");
        }
        return client;
    }
}
