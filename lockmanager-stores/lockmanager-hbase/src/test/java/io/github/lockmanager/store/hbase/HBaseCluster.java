package io.github.lockmanager.store.hbase;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

import io.github.lockmanager.LockManagerException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The HBase every test of this JVM shares: an external cluster when {@code -Dlockmanager.hbase.zookeeper.quorum}
 * names its ZooKeeper quorum (with {@code -Dlockmanager.hbase.zookeeper.port}, default 2181), else a mini cluster
 * started on first use and stopped when the JVM exits.
 */
final class HBaseCluster {
    static final String QUORUM_PROPERTY = "lockmanager.hbase.zookeeper.quorum";
    private static Connection connection;
    /** The mini cluster, when the tests started one; {@code null} on an external cluster. */
    private static HBaseTestingUtility miniCluster;
    private static final Map<String, HBaseLockStore> STORES = new ConcurrentHashMap<>();

    private HBaseCluster() {
    }

    static synchronized Connection connection() {
        if (connection == null) {
            try {
                connection = connect();
            } catch (Exception e) {
                throw new IllegalStateException("could not start or reach HBase for the tests", e);
            }
        }
        return connection;
    }

    /**
     * The RPCs the mini cluster's region servers have served so far; -1 on an external cluster, whose count the
     * tests cannot read.
     */
    static synchronized long regionServerRequests() {
        connection();
        if (miniCluster == null) {
            return -1;
        }
        long total = 0;
        for (var server : miniCluster.getMiniHBaseCluster().getRegionServerThreads()) {
            total += server.getRegionServer().getMetrics().getRegionServerWrapper().getTotalRequestCount();
        }
        return total;
    }

    /**
     * Aborts every region server of the mini cluster at once, as a crash would, and waits until they are gone.
     *
     * @return {@code false} on an external cluster, which the tests do not crash
     */
    static synchronized boolean crashRegionServers() {
        connection();
        if (miniCluster == null) {
            return false;
        }
        var cluster = miniCluster.getMiniHBaseCluster();
        int servers = cluster.getRegionServerThreads().size();
        for (int i = 0; i < servers; i++) {
            cluster.abortRegionServer(i);
        }
        for (int i = 0; i < servers; i++) {
            cluster.waitOnRegionServer(i);
        }
        return true;
    }

    /** Starts a region server again and waits until {@code table}'s regions are served, at most {@code millis}. */
    static synchronized void startRegionServer(String table, long millis) throws Exception {
        miniCluster.getMiniHBaseCluster().startRegionServer();
        miniCluster.waitTableAvailable(org.apache.hadoop.hbase.TableName.valueOf(table), millis);
    }

    /** An initialized store on {@code table}, one per table for the whole test JVM. */
    static HBaseLockStore store(String table) {
        return STORES.computeIfAbsent(table, name -> {
            HBaseLockStore store = HBaseLockStore.builder(connection()).tableName(name).build();
            try {
                store.initialize();
            } catch (LockManagerException e) {
                throw new IllegalStateException("cannot create HBase table " + name, e);
            }
            return store;
        });
    }

    private static Connection connect() throws Exception {
        String quorum = System.getProperty(QUORUM_PROPERTY);
        if (quorum != null && !quorum.isBlank()) {
            Configuration conf = HBaseConfiguration.create();
            conf.set("hbase.zookeeper.quorum", quorum);
            conf.set("hbase.zookeeper.property.clientPort", System.getProperty("lockmanager.hbase.zookeeper.port", "2181"));
            System.out.println("HBase tests use the external cluster at " + quorum);
            return ConnectionFactory.createConnection(conf);
        }
        long start = System.nanoTime();
        HBaseTestingUtility util = new HBaseTestingUtility();
        util.getConfiguration().setInt("hbase.regionserver.handler.count", 10);
        // HBase on the local file system, without a mini HDFS: the tests need a real region server, not HDFS, and
        // HDFS doubles the start-up. The local file system cannot sync a write-ahead log, which HBase then only
        // has to be told to accept
        util.getConfiguration().setBoolean("hbase.unsafe.stream.capability.enforce", false);
        // the region server shares the tests' heap: without these, each region written to takes a 2 MiB memstore
        // chunk (the lock tables have 256 regions each), and caches may take 80% of the heap, which ran a test JVM
        // out of memory on a loaded CI run
        util.getConfiguration().setBoolean("hbase.hregion.memstore.mslab.enabled", false);
        util.getConfiguration().setFloat("hfile.block.cache.size", 0.1f);
        util.getConfiguration().setFloat("hbase.regionserver.global.memstore.size", 0.2f);
        util.startMiniZKCluster();
        util.startMiniHBaseCluster();
        System.out.printf("HBase mini cluster started in %d ms%n", (System.nanoTime() - start) / 1_000_000);
        miniCluster = util;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                util.shutdownMiniCluster();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, "hbase-mini-cluster-shutdown"));
        return util.getConnection();
    }
}
