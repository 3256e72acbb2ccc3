package io.github.lockmanager.spring.boot;

import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.jdbc.JdbcLockStore;

import javax.sql.DataSource;

/** Builds the JDBC store; loaded only when {@code lockmanager-jdbc} is on the class path. */
final class JdbcStoreFactory {
    private JdbcStoreFactory() {
    }

    static LockStore build(Object dataSource, LockManagerProperties properties) {
        JdbcLockStore.Builder builder = JdbcLockStore.builder((DataSource) dataSource);
        Settings.apply("jdbc.table-name", properties.getJdbc().getTableName(), builder::tableName);
        Settings.apply("jdbc.durable-releases", properties.getJdbc().getDurableReleases(), builder::durableReleases);
        StoreSelection.applyCommon(builder, properties);
        return builder.build();
    }
}
