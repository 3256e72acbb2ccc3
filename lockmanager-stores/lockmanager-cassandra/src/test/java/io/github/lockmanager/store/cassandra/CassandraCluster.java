package io.github.lockmanager.store.cassandra;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import io.github.lockmanager.LockManagerException;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * The single Cassandra node the tests of this JVM share, started at first use ({@link CassandraNode}), and a session on
 * it with the keyspace {@value #KEYSPACE} (SimpleStrategy, one replica).
 */
public final class CassandraCluster {
    public static final String KEYSPACE = "lockmanager_test";
    public static final String DATA_CENTRE = "dc1";
    private static CassandraNode node;
    private static CqlSession session;

    private CassandraCluster() {
    }

    public static synchronized CassandraNode node() {
        if (node == null) {
            node = new CassandraNode("node1", "127.0.0.1", DATA_CENTRE, "127.0.0.1",
                    CassandraNode.freePort("127.0.0.1"));
            node.startFresh();
        }
        return node;
    }

    /** The shared session, on the keyspace; made at first use. */
    public static synchronized CqlSession session() {
        if (session == null) {
            session = newSession(node());
            session.execute("CREATE KEYSPACE IF NOT EXISTS " + KEYSPACE
                    + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
        }
        return session;
    }

    /** A session of its own on {@code node} (a node of a cluster the test made, or the shared one). */
    public static CqlSession newSession(CassandraNode node) {
        return newSession(new InetSocketAddress(node.address(), node.nativePort()), node.dataCentre());
    }

    /**
     * A session of its own whose contact point is {@code contact} (a node, or a proxy in front of one) in the data
     * centre {@code dataCentre}. It tries a lost connection again at least every 2 s (the driver's default waits up to
     * a minute), so a test's restart or cut is over for it soon after the node is back.
     */
    public static CqlSession newSession(InetSocketAddress contact, String dataCentre) {
        return CqlSession.builder()
                .addContactPoint(contact)
                .withLocalDatacenter(dataCentre)
                .withConfigLoader(DriverConfigLoader.programmaticBuilder()
                        .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(10))
                        .withDuration(DefaultDriverOption.CONNECTION_INIT_QUERY_TIMEOUT, Duration.ofSeconds(10))
                        .withDuration(DefaultDriverOption.METADATA_SCHEMA_REQUEST_TIMEOUT, Duration.ofSeconds(20))
                        .withDuration(DefaultDriverOption.CONTROL_CONNECTION_AGREEMENT_TIMEOUT, Duration.ofSeconds(20))
                        .withDuration(DefaultDriverOption.RECONNECTION_BASE_DELAY, Duration.ofMillis(200))
                        .withDuration(DefaultDriverOption.RECONNECTION_MAX_DELAY, Duration.ofSeconds(2))
                        .build())
                .build();
    }

    /** An initialized store on the shared session whose table is {@code table}. */
    public static CassandraLockStore store(String table) {
        CassandraLockStore store = CassandraLockStore.builder(session()).keyspace(KEYSPACE).table(table)
                .maxClockSkew(Duration.ofMillis(50)).build();
        try {
            store.initialize();
        } catch (LockManagerException e) {
            throw new IllegalStateException("Cassandra table " + table + " is not usable", e);
        }
        return store;
    }
}
