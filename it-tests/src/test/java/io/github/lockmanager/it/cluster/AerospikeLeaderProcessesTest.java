package io.github.lockmanager.it.cluster;

import org.junit.jupiter.api.BeforeAll;

import java.util.Map;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@link LeaderProcessesTest} on Aerospike: skipped unless {@code -Daerospike.host} names a server. */
class AerospikeLeaderProcessesTest extends LeaderProcessesTest {
    @BeforeAll
    static void requireServer() {
        assumeTrue(!Stores.aerospikeHost().isBlank(), "no Aerospike server named: run with -Daerospike.host=<host>");
    }

    @Override
    Stores.Target target() {
        return Stores.aerospike("leaders");
    }

    @Override
    Map<String, String> throughProxy(Map<String, String> settings, int port) {
        assumeTrue(false, "the client learns the cluster's node addresses from the seed: a proxy on the seed alone "
                + "would not carry every call");
        return settings;
    }
}
