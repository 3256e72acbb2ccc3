package io.github.lockmanager.it.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.store.jdbc.JdbcLockStore;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The databases the JDBC tests run on: the local PostgreSQL and MariaDB (as {@code .ci/run} starts them) and H2
 * in this process. URLs can be changed with {@code -Dlockmanager.postgres.url}, {@code -Dlockmanager.mariadb.url}.
 */
enum Database {
    POSTGRES("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "lockmanager.postgres.url"),
    MARIADB("jdbc:mariadb://127.0.0.1:3306/test", "root", "lockmanager.mariadb.url"),
    H2("jdbc:h2:mem:lockmanager;DB_CLOSE_DELAY=-1", "sa", "lockmanager.h2.url");

    private static final Map<Database, HikariDataSource> SHARED = new ConcurrentHashMap<>();
    private static final Map<Database, JdbcLockStore> TCK_STORES = new ConcurrentHashMap<>();

    private final String url;
    private final String user;
    private final String property;

    Database(String url, String user, String property) {
        this.url = url;
        this.user = user;
        this.property = property;
    }

    /** The JDBC URL, as overridden by its system property. */
    String url() {
        return System.getProperty(property, url);
    }

    /** One pool per database for the whole test JVM. */
    HikariDataSource shared() {
        return SHARED.computeIfAbsent(this, db -> db.pool(10));
    }

    /** The initialized store the TCK runs on, one per database. */
    JdbcLockStore tckStore() {
        return TCK_STORES.computeIfAbsent(this, db -> {
            JdbcLockStore store = JdbcLockStore.builder(db.shared()).tableName("lockmanager_tck").build();
            try {
                store.initialize();
            } catch (LockManagerException e) {
                throw new IllegalStateException("cannot create the TCK table on " + db, e);
            }
            return store;
        });
    }

    /** A new pool of at most {@code size} connections; the caller closes it. */
    HikariDataSource pool(int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url());
        config.setUsername(user);
        config.setPassword("");
        config.setMaximumPoolSize(size);
        config.setConnectionTimeout(2_000);
        config.setPoolName("test-" + name().toLowerCase() + "-" + size);
        return new HikariDataSource(config);
    }
}
