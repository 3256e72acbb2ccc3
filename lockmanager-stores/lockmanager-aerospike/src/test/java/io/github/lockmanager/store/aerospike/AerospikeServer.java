package io.github.lockmanager.store.aerospike;

import com.aerospike.client.AerospikeClient;
import com.aerospike.client.IAerospikeClient;
import com.aerospike.client.policy.ClientPolicy;
import io.github.lockmanager.LockManagerException;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;

import java.time.Duration;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The Aerospike server the tests of this JVM share: the one named by {@code -Daerospike.host} (and
 * {@code -Daerospike.port}, default 3000; namespace {@code -Daerospike.namespace}, default {@code test}); else
 * an {@code aerospike/aerospike-server} container when a Docker engine is reachable; else the tests are skipped
 * with a message saying how to run them: test classes that use it say {@code @ExtendWith(AerospikeServer.class)}.
 */
final class AerospikeServer implements ExecutionCondition {
    static final String IMAGE = "aerospike/aerospike-server:7.2.0.6";
    private static IAerospikeClient client;
    private static String skipReason;

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        return available() ? ConditionEvaluationResult.enabled("Aerospike is available")
                : ConditionEvaluationResult.disabled(skipReason);
    }

    private static synchronized boolean available() {
        if (client == null && skipReason == null) {
            connect();
        }
        return client != null;
    }

    /** The shared client; only for test classes that the condition let run. */
    static synchronized IAerospikeClient client() {
        if (!available()) {
            throw new IllegalStateException(skipReason);
        }
        return client;
    }

    /** An initialized store whose sets end in {@code suffix}; only for test classes that the condition let run. */
    static AerospikeLockStore store(String suffix) {
        AerospikeLockStore store = AerospikeLockStore.builder(client()).namespace(namespace()).setSuffix(suffix).build();
        try {
            store.initialize();
        } catch (LockManagerException e) {
            throw new IllegalStateException("Aerospike namespace " + namespace() + " is not usable", e);
        }
        return store;
    }

    static String namespace() {
        return System.getProperty("aerospike.namespace", "test");
    }

    private static void connect() {
        String host = System.getProperty("aerospike.host");
        int port = Integer.getInteger("aerospike.port", 3000);
        if (host == null || host.isBlank()) {
            if (!DockerClientFactory.instance().isDockerAvailable()) {
                skipReason = "Aerospike tests skipped: no server given and no Docker engine reachable. Run them with "
                        + "-Daerospike.host=<host> [-Daerospike.port=3000] [-Daerospike.namespace=test] against a "
                        + "server 7.0+ whose namespace accepts TTLs (nsup-period > 0), or where Docker runs.";
                System.out.println(skipReason);
                return;
            }
            GenericContainer<?> container = new GenericContainer<>(IMAGE)
                    .withExposedPorts(3000)
                    .withEnv("NAMESPACE", namespace())
                    .withEnv("NSUP_PERIOD", "1")
                    .waitingFor(Wait.forLogMessage(".*service ready.*", 1).withStartupTimeout(Duration.ofMinutes(2)));
            container.start();
            host = container.getHost();
            port = container.getMappedPort(3000);
            System.out.println("Aerospike tests use a container of " + IMAGE);
        } else {
            System.out.println("Aerospike tests use the server at " + host + ":" + port);
        }
        client = new AerospikeClient(new ClientPolicy(), host, port);
    }
}
