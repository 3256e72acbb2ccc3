package io.github.lockmanager.it.cluster;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.spi.LockStore;
import com.aerospike.client.AerospikeClient;
import com.aerospike.client.policy.ClientPolicy;
import io.github.lockmanager.store.cassandra.CassandraCluster;
import io.github.lockmanager.store.cassandra.CassandraLockStore;
import io.github.lockmanager.store.cassandra.CassandraNode;
import io.github.lockmanager.store.hbase.HBaseLockStore;
import io.github.lockmanager.store.jdbc.JdbcLockStore;
import org.apache.hadoop.conf.Configuration;

import java.util.HashMap;
import java.util.Map;

/** The stores the process tests run on, as settings for a {@link ClusterNode} and as a store for the test itself. */
final class Stores {
    /** Where the proxy of the outage tests forwards to: the local PostgreSQL. */
    static final int POSTGRES_PORT = 5432;

    private Stores() {
    }

    interface Target {
        String name();

        /** The {@code node.*} settings of a node of this store. */
        Map<String, String> settings(String client, String nodeId);

        /** The same store, seen from the test. */
        LockStore store() throws LockManagerException;

        /**
         * The longest critical section of the cluster tests, in µs: long beside the store's round trip, so that
         * shared holders of one key are inside together often enough to be seen.
         */
        default int sectionMicros() {
            return 2_000;
        }
    }

    static Target hbase(String table) {
        Configuration conf = io.github.lockmanager.store.hbase.HBaseClusterAccess.connection().getConfiguration();
        return new Target() {
            @Override
            public String name() {
                return "HBase";
            }

            @Override
            public Map<String, String> settings(String client, String nodeId) {
                Map<String, String> settings = common(client, nodeId, table);
                settings.put("node.store", "hbase");
                settings.put("node.zk.quorum", conf.get("hbase.zookeeper.quorum"));
                settings.put("node.zk.port", conf.get("hbase.zookeeper.property.clientPort"));
                return settings;
            }

            @Override
            public LockStore store() throws LockManagerException {
                HBaseLockStore store = HBaseLockStore.builder(io.github.lockmanager.store.hbase.HBaseClusterAccess.connection())
                        .tableName(table).build();
                store.initialize();
                return store;
            }
        };
    }

    /** The tests' PostgreSQL database ({@code -Dlockmanager.postgres.url}, default the local {@code test}). */
    static Target postgres(String table) {
        String url = io.github.lockmanager.store.jdbc.DatabaseAccess.postgresUrl();
        return new Target() {
            @Override
            public String name() {
                return "PostgreSQL";
            }

            @Override
            public Map<String, String> settings(String client, String nodeId) {
                Map<String, String> settings = common(client, nodeId, table);
                settings.put("node.store", "jdbc");
                settings.put("node.jdbc.url", url);
                settings.put("node.jdbc.user", "postgres");
                return settings;
            }

            @Override
            public LockStore store() throws LockManagerException {
                JdbcLockStore store = JdbcLockStore.builder(io.github.lockmanager.store.jdbc.DatabaseAccess.postgres())
                        .tableName(table).build();
                store.initialize();
                return store;
            }
        };
    }

    /** The Aerospike server named by {@code -Daerospike.host}, if any: the Aerospike tests are skipped without one. */
    static String aerospikeHost() {
        return System.getProperty("aerospike.host", "");
    }

    /**
     * The server at {@code -Daerospike.host} ({@code -Daerospike.port}, default 3000; namespace
     * {@code -Daerospike.namespace}, default {@code test}), sets ending in {@code suffix}.
     */
    static Target aerospike(String suffix) {
        String host = aerospikeHost();
        int port = Integer.getInteger("aerospike.port", 3000);
        String namespace = System.getProperty("aerospike.namespace", "test");
        return new Target() {
            @Override
            public String name() {
                return "Aerospike";
            }

            @Override
            public Map<String, String> settings(String client, String nodeId) {
                Map<String, String> settings = common(client, nodeId, suffix);
                settings.put("node.store", "aerospike");
                settings.put("node.aerospike.host", host);
                settings.put("node.aerospike.port", Integer.toString(port));
                settings.put("node.aerospike.namespace", namespace);
                return settings;
            }

            @Override
            public LockStore store() throws LockManagerException {
                return ClusterNode.aerospike(new AerospikeClient(new ClientPolicy(), host, port), namespace, suffix);
            }
        };
    }

    /**
     * The Cassandra node this test JVM starts at first use ({@code CassandraCluster}: one node on 127.0.0.1, data
     * centre {@code dc1}, keyspace {@code lockmanager_test}), the table {@code table}.
     */
    static Target cassandra(String table) {
        CassandraNode node = CassandraCluster.node();
        CassandraCluster.session();
        return new Target() {
            @Override
            public String name() {
                return "Cassandra";
            }

            @Override
            public Map<String, String> settings(String client, String nodeId) {
                Map<String, String> settings = common(client, nodeId, table);
                settings.put("node.store", "cassandra");
                settings.put("node.cassandra.host", node.address());
                settings.put("node.cassandra.port", Integer.toString(node.nativePort()));
                settings.put("node.cassandra.dc", node.dataCentre());
                settings.put("node.cassandra.keyspace", CassandraCluster.KEYSPACE);
                return settings;
            }

            @Override
            public int sectionMicros() {
                // a lightweight transaction takes 5 to 20 ms here, ten times a SQL update
                return 20_000;
            }

            @Override
            public LockStore store() throws LockManagerException {
                CassandraLockStore store = CassandraLockStore.builder(CassandraCluster.session())
                        .keyspace(CassandraCluster.KEYSPACE).table(table).build();
                store.initialize();
                return store;
            }
        };
    }

    /** The Redis at {@code -Dredis.uri} (default the machine's {@code redis://127.0.0.1:6379}), keys under {@code prefix}. */
    static Target redis(String prefix) {
        String uri = System.getProperty("redis.uri", "redis://127.0.0.1:6379");
        return new Target() {
            @Override
            public String name() {
                return "Redis";
            }

            @Override
            public Map<String, String> settings(String client, String nodeId) {
                Map<String, String> settings = common(client, nodeId, prefix);
                settings.put("node.store", "redis");
                settings.put("node.redis.uri", uri);
                return settings;
            }

            @Override
            public LockStore store() throws LockManagerException {
                return ClusterNode.redis(uri, prefix);
            }
        };
    }

    private static Map<String, String> common(String client, String nodeId, String table) {
        Map<String, String> settings = new HashMap<>();
        settings.put("node.client", client);
        settings.put("node.id", nodeId);
        settings.put("node.table", table);
        return settings;
    }
}
