package io.github.lockmanager.store.hbase;

import org.apache.hadoop.hbase.client.Connection;

/** The test JVM's HBase, for tests in other packages. */
public final class HBaseClusterAccess {
    private HBaseClusterAccess() {
    }

    public static Connection connection() {
        return HBaseCluster.connection();
    }

    /** Aborts every region server of the mini cluster; {@code false} on an external cluster, left alone. */
    public static boolean crashRegionServers() {
        return HBaseCluster.crashRegionServers();
    }

    /** Starts a region server again and waits until {@code table} is served, at most {@code millis}. */
    public static void startRegionServer(String table, long millis) throws Exception {
        HBaseCluster.startRegionServer(table, millis);
    }
}
