package io.github.lockmanager.cli;

import com.aerospike.client.AerospikeClient;
import com.aerospike.client.AerospikeException;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.aerospike.AerospikeLockStore;
import io.github.lockmanager.store.hbase.HBaseLockStore;
import io.github.lockmanager.store.jdbc.JdbcLockStore;
import io.github.lockmanager.store.redis.RedisLockStore;
import io.lettuce.core.RedisURI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * Which store the command works on: exactly one of a JDBC URL, an HBase ZooKeeper quorum, an Aerospike host or a Redis
 * URI.
 */
final class StoreOptions {

    @ArgGroup(exclusive = true, multiplicity = "1", heading = "The store, one of:%n")
    Where where;

    static final class Where {
        @Option(names = "--jdbc-url", paramLabel = "URL",
                description = "A JDBC URL of PostgreSQL, MariaDB/MySQL or H2, e.g. jdbc:postgresql://db:5432/app")
        String jdbcUrl;

        @Option(names = "--hbase-quorum", paramLabel = "HOSTS",
                description = "The ZooKeeper quorum of the HBase cluster, e.g. zk1,zk2,zk3")
        String hbaseQuorum;

        @Option(names = "--aerospike-host", paramLabel = "HOST", description = "A seed node of the Aerospike cluster")
        String aerospikeHost;

        @Option(names = "--redis-uri", paramLabel = "URI", description = "Redis or Valkey: redis://host:6379/0, "
                + "rediss://..., redis-sentinel://host:26379#master, or a cluster node with --redis-cluster")
        String redisUri;
    }

    @Option(names = "--redis-cluster", description = "The Redis URI is a node of a Redis Cluster")
    boolean redisCluster;

    @Option(names = "--redis-prefix", paramLabel = "PREFIX",
            description = "What the lock hashes' names start with; default: ${DEFAULT-VALUE}", defaultValue = "lockmanager:")
    String redisPrefix;

    @Option(names = "--user", description = "JDBC user")
    String user;

    @Option(names = "--password", description = "JDBC or Redis password; prefer --password-env", arity = "0..1",
            interactive = true)
    String password;

    @Option(names = "--password-env", paramLabel = "VARIABLE",
            description = "The environment variable that holds the JDBC or Redis password")
    String passwordEnv;

    @Option(names = "--table", description = "The lock table (JDBC, HBase); default: ${DEFAULT-VALUE}",
            defaultValue = "lockmanager_locks")
    String table;

    @Option(names = "--hbase-port", description = "ZooKeeper client port; default: ${DEFAULT-VALUE}",
            defaultValue = "2181")
    int hbasePort;

    @Option(names = "--aerospike-port", description = "Default: ${DEFAULT-VALUE}", defaultValue = "3000")
    int aerospikePort;

    @Option(names = "--namespace", description = "Aerospike namespace; default: ${DEFAULT-VALUE}", defaultValue = "test")
    String namespace;

    /** The store, ready to use; closing it closes its connection. */
    LockStore open() throws LockManagerException {
        if (where.jdbcUrl != null) {
            if (!where.jdbcUrl.startsWith("jdbc:")) {
                throw new IllegalArgumentException("--jdbc-url must start with 'jdbc:', was '" + where.jdbcUrl + "'");
            }
            return JdbcLockStore.builder(new DriverDataSource(where.jdbcUrl, user, password())).tableName(table).build();
        }
        if (where.hbaseQuorum != null) {
            Configuration conf = HBaseConfiguration.create();
            conf.set("hbase.zookeeper.quorum", where.hbaseQuorum);
            conf.setInt("hbase.zookeeper.property.clientPort", hbasePort);
            // a tool should say the cluster is unreachable in seconds, not retry for minutes
            conf.setInt("hbase.client.retries.number", 3);
            conf.setInt("zookeeper.recovery.retry", 1);
            try {
                return HBaseLockStore.builder(ConnectionFactory.createConnection(conf)).tableName(table)
                        .closeConnectionOnClose(true).build();
            } catch (IOException e) {
                throw new LockManagerException(ErrorCode.CONNECTION_ERROR, "could not connect to the HBase cluster of "
                        + "ZooKeeper quorum " + where.hbaseQuorum + ":" + hbasePort + ": " + e, e);
            }
        }
        if (where.redisUri != null) {
            return redis();
        }
        try {
            AerospikeClient client = new AerospikeClient(where.aerospikeHost, aerospikePort);
            return new ClosingStore(AerospikeLockStore.builder(client).namespace(namespace).build(), client);
        } catch (AerospikeException e) {
            throw new LockManagerException(ErrorCode.CONNECTION_ERROR, "could not connect to Aerospike at "
                    + where.aerospikeHost + ":" + aerospikePort + ": " + e.getMessage(), e);
        }
    }

    /** The Redis store on a client of its own, which it shuts down when it closes; a password given apart is set. */
    private LockStore redis() {
        RedisURI uri;
        try {
            uri = RedisURI.create(where.redisUri);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("--redis-uri is not a Redis URI (redis://host:6379/0, "
                    + "redis-sentinel://host:26379#master): " + e.getMessage(), e);
        }
        String secret = password();
        if (secret != null) {
            uri.setAuthentication(user != null ? user : "default", secret.toCharArray());
        }
        // a tool should say the server is unreachable in seconds
        uri.setTimeout(Duration.ofSeconds(5));
        RedisLockStore.Builder builder = redisCluster ? RedisLockStore.clusterBuilder(List.of(uri))
                : RedisLockStore.builder(uri);
        return builder.keyPrefix(redisPrefix).build();
    }

    private String password() {
        if (passwordEnv == null) {
            return password;
        }
        String value = System.getenv(passwordEnv);
        if (value == null) {
            throw new IllegalArgumentException("--password-env names " + passwordEnv + ", which is not set");
        }
        return value;
    }

    /** Where the store is, for messages. */
    String describe() {
        if (where.jdbcUrl != null) {
            return where.jdbcUrl + " (table " + table + ")";
        }
        if (where.hbaseQuorum != null) {
            return "HBase quorum " + where.hbaseQuorum + ":" + hbasePort + " (table " + table + ")";
        }
        if (where.redisUri != null) {
            return "Redis " + where.redisUri.replaceAll("//[^@/]*@", "//") + " (keys " + redisPrefix + "*)";
        }
        return "Aerospike " + where.aerospikeHost + ":" + aerospikePort + " (namespace " + namespace + ")";
    }
}
