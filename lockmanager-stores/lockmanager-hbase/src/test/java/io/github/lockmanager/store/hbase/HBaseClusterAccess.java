package io.github.lockmanager.store.hbase;

import org.apache.hadoop.hbase.client.Connection;

/** The test JVM's HBase, for tests in other packages. */
public final class HBaseClusterAccess {
    private HBaseClusterAccess() {
    }

    public static Connection connection() {
        return HBaseCluster.connection();
    }
}
