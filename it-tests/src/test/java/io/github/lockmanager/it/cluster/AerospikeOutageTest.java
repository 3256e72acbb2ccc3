package io.github.lockmanager.it.cluster;

import com.aerospike.client.AerospikeClient;
import com.aerospike.client.Host;
import com.aerospike.client.policy.ClientPolicy;
import io.github.lockmanager.spi.LockStore;
import org.junit.jupiter.api.BeforeAll;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The outage tests on Aerospike (the client keeps the seed's address, so every call goes through the proxy). Skipped
 * unless {@code -Daerospike.host} names a server on this machine.
 */
class AerospikeOutageTest extends ProxiedOutageContract {
    private static final String SUFFIX = "outage";
    private AerospikeClient throughProxy;

    @BeforeAll
    static void requireServer() {
        assumeTrue(!Stores.aerospikeHost().isBlank(), "no Aerospike server named: run with -Daerospike.host=<host>");
    }

    @Override
    String name() {
        return "Aerospike";
    }

    @Override
    int serverPort() {
        return Integer.getInteger("aerospike.port", 3000);
    }

    @Override
    LockStore storeThrough(int port) throws Exception {
        ClientPolicy policy = new ClientPolicy();
        policy.timeout = 1_000;
        throughProxy = new AerospikeClient(policy, new Host("127.0.0.1", port));
        return ClusterNode.aerospike(throughProxy, System.getProperty("aerospike.namespace", "test"), SUFFIX);
    }

    @Override
    void closeThrough() {
        throughProxy.close();
    }

    @Override
    Stores.Target direct() {
        return Stores.aerospike(SUFFIX);
    }
}
