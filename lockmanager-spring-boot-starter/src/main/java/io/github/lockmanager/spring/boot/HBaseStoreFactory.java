package io.github.lockmanager.spring.boot;

import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.hbase.HBaseLockStore;
import org.apache.hadoop.hbase.client.Connection;

/**
 * Builds the HBase store; loaded only when {@code lockmanager-hbase} is on the class path. The connection stays the
 * application's: the store does not close it.
 */
final class HBaseStoreFactory {
    private HBaseStoreFactory() {
    }

    static LockStore build(Object connection, LockManagerProperties properties) {
        HBaseLockStore.Builder builder = HBaseLockStore.builder((Connection) connection);
        Settings.apply("hbase.table-name", properties.getHbase().getTableName(), builder::tableName);
        StoreSelection.applyCommon(builder, properties);
        return builder.build();
    }
}
