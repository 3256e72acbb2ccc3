package io.github.lockmanager.it.cluster;

import com.datastax.oss.driver.api.core.CqlSession;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.cassandra.CassandraCluster;
import io.github.lockmanager.store.cassandra.CassandraNode;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.net.InetSocketAddress;

/**
 * The outage tests on Cassandra: the proxied session's only contact point is the proxy, and the driver keeps the
 * contact point's address for the node it found there, so every call goes through the proxy.
 */
@EnabledIfSystemProperty(named = "cassandra.full", matches = "true", disabledReason = "a slow Cassandra suite: run with -Dcassandra.full=true")
class CassandraOutageTest extends ProxiedOutageContract {
    private static final String TABLE = "lockmanager_outage";

    @Override
    String name() {
        return "Cassandra";
    }

    @Override
    int serverPort() {
        return CassandraCluster.node().nativePort();
    }

    @Override
    LockStore storeThrough(int port) throws Exception {
        CassandraNode node = CassandraCluster.node();
        CassandraCluster.session(); // makes the keyspace
        CqlSession session = CassandraCluster.newSession(new InetSocketAddress(node.address(), port),
                node.dataCentre());
        return ClusterNode.cassandra(session, CassandraCluster.KEYSPACE, TABLE);
    }

    @Override
    Stores.Target direct() {
        return Stores.cassandra(TABLE);
    }
}
