package io.github.lockmanager.it.cluster;

import org.junit.jupiter.api.BeforeAll;

import java.util.Map;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link LeaderProcessesTest} on Aerospike: skipped unless {@code -Daerospike.host} names a server; its restart case
 * also needs {@code -Daerospike.stop} and {@code -Daerospike.start}, the commands that stop and start that server
 * (which keeps its records: a namespace on a device or file).
 */
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
    OwnServer ownServer() {
        String stop = System.getProperty("aerospike.stop", "");
        String start = System.getProperty("aerospike.start", "");
        if (stop.isBlank() || start.isBlank()) {
            return null;
        }
        return new OwnServer(-1, Map.of(), false, () -> run(stop), () -> run(start), () -> { });
    }

    private static void run(String command) throws Exception {
        Process process = new ProcessBuilder("sh", "-c", command).inheritIO().start();
        if (!process.waitFor(120, java.util.concurrent.TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException("'" + command + "' failed");
        }
    }

    @Override
    Map<String, String> throughProxy(Map<String, String> settings, int port) {
        assumeTrue(false, "the client learns the cluster's node addresses from the seed: a proxy on the seed alone "
                + "would not carry every call");
        return settings;
    }
}
