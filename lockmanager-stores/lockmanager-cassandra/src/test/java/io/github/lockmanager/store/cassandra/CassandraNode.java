package io.github.lockmanager.store.cassandra;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One Apache Cassandra node for the tests, in a JVM of its own: {@code cassandra-all} of the version that
 * {@code lockmanager-stores/cassandra-test-server} pins, on a loopback address, its data under
 * {@code target/cassandra/<name>}. It starts in about 10 s on 2 cores. {@link #kill()} ends it as a crash would (its
 * commit log kept), {@link #start()} starts it again on the same data.
 */
public final class CassandraNode {
    private static final List<CassandraNode> RUNNING = new ArrayList<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            List<CassandraNode> running;
            synchronized (RUNNING) {
                // a copy: kill() takes each node off the list
                running = new ArrayList<>(RUNNING);
            }
            running.forEach(CassandraNode::kill);
        }, "cassandra-nodes-stop"));
    }

    private final String name;
    private final String address;
    private final String dataCentre;
    private final String seed;
    private final int storagePort;
    private final int nativePort;
    private final Path dir;
    private Process process;

    /**
     * @param seed        the address of the cluster's first node ({@code address} itself for the first)
     * @param storagePort the port the nodes talk on, the same for every node of a cluster
     */
    public CassandraNode(String name, String address, String dataCentre, String seed, int storagePort) {
        this.name = name;
        this.address = address;
        this.dataCentre = dataCentre;
        this.seed = seed;
        this.storagePort = storagePort;
        this.nativePort = freePort(address);
        this.dir = Paths.get(System.getProperty("cassandra.dir", "target/cassandra"), name).toAbsolutePath();
    }

    public String address() {
        return address;
    }

    public int nativePort() {
        return nativePort;
    }

    public String dataCentre() {
        return dataCentre;
    }

    /** Deletes what an earlier run left, then starts the node and waits until it takes CQL connections. */
    public void startFresh() {
        deleteTree(dir);
        start();
    }

    /** Starts the node on the data it has and waits until it takes CQL connections. */
    public synchronized void start() {
        try {
            Files.createDirectories(dir);
            writeConfig();
            // the node's JVM replaces a shell whose watcher ends it when this JVM is gone, however it ended: a test or
            // benchmark JVM killed or crashed leaves no node behind (the shutdown hook covers only an orderly exit)
            List<String> command = new ArrayList<>(List.of("bash", "-c", "parent=" + ProcessHandle.current().pid()
                    + "; (while kill -0 $parent 2>/dev/null && kill -0 $$ 2>/dev/null; do sleep 1; done;"
                    + " kill -0 $parent 2>/dev/null || kill -9 $$ 2>/dev/null) & exec \"$@\"", "cassandra-" + name,
                    Paths.get(System.getProperty("java.home"), "bin", "java")
                    .toString(), "-Xms512m", "-Xmx768m", "-Xss512k", "-XX:+UseG1GC", "-XX:ActiveProcessorCount=2",
                    "-Djava.net.preferIPv4Stack=true",
                    "-Dcassandra.config=file://" + dir.resolve("cassandra.yaml"),
                    "-Dcassandra-rackdc.properties=file://" + dir.resolve("cassandra-rackdc.properties"),
                    "-Dlogback.configurationFile=" + dir.resolve("logback.xml"),
                    "-Dcassandra.storagedir=" + dir, "-Dcassandra-foreground=yes",
                    "-Dcassandra.jmx.local.port=" + freePort("127.0.0.1"),
                    "-Dcassandra.skip_wait_for_gossip_to_settle=0", "-Dcassandra.ring_delay_ms=100",
                    "-Dcassandra.superuser_setup_delay_ms=0", "-Djdk.attach.allowAttachSelf=true"));
            for (String module : List.of("java.base/jdk.internal.misc", "java.base/jdk.internal.ref",
                    "java.base/sun.nio.ch", "java.management.rmi/com.sun.jmx.remote.internal.rmi",
                    "java.rmi/sun.rmi.registry", "java.rmi/sun.rmi.server", "java.sql/java.sql")) {
                command.add("--add-exports");
                command.add(module + "=ALL-UNNAMED");
            }
            for (String module : List.of("java.base/java.lang.module", "java.base/jdk.internal.loader",
                    "java.base/jdk.internal.ref", "java.base/jdk.internal.reflect", "java.base/jdk.internal.math",
                    "java.base/jdk.internal.module", "java.base/jdk.internal.util.jar",
                    "jdk.management/com.sun.management.internal", "java.base/sun.nio.ch", "java.base/java.io",
                    "java.base/java.nio", "java.base/java.lang", "java.base/java.util",
                    "java.base/java.util.concurrent", "java.base/java.util.concurrent.atomic", "java.base/java.net")) {
                command.add("--add-opens");
                command.add(module + "=ALL-UNNAMED");
            }
            command.add("-cp");
            command.add(serverClassPath());
            command.add("org.apache.cassandra.service.CassandraDaemon");
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("out.log").toFile())).start();
            synchronized (RUNNING) {
                RUNNING.add(this);
            }
            awaitNativePort(TimeUnit.MINUTES.toNanos(3));
        } catch (IOException e) {
            throw new UncheckedIOException("could not start Cassandra node " + name, e);
        }
    }

    /** Ends the node at once, as a crash would, and waits until its process is gone. */
    public synchronized void kill() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
        synchronized (RUNNING) {
            RUNNING.remove(this);
        }
    }

    private void awaitNativePort(long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("Cassandra node " + name + " exited with " + process.exitValue()
                        + " while starting: see " + dir.resolve("out.log"));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(address, nativePort), 500);
                return;
            } catch (IOException notYet) {
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while Cassandra node " + name + " started", e);
                }
            }
        }
        throw new IllegalStateException("Cassandra node " + name + " did not take CQL connections on " + address + ":"
                + nativePort + " within 3 minutes: see " + dir.resolve("out.log"));
    }

    private void writeConfig() throws IOException {
        String yaml = String.join("\n",
                "cluster_name: lockmanager-test",
                "num_tokens: 1",
                "allocate_tokens_for_local_replication_factor: 1",
                "partitioner: org.apache.cassandra.dht.Murmur3Partitioner",
                "data_file_directories: [" + dir.resolve("data") + "]",
                "commitlog_directory: " + dir.resolve("commitlog"),
                "saved_caches_directory: " + dir.resolve("saved_caches"),
                "hints_directory: " + dir.resolve("hints"),
                "cdc_raw_directory: " + dir.resolve("cdc"),
                // a write is on disk within 100 ms: a kill loses at most that much of what the node acknowledged
                "commitlog_sync: periodic",
                "commitlog_sync_period: 100ms",
                "seed_provider:",
                "  - class_name: org.apache.cassandra.locator.SimpleSeedProvider",
                "    parameters:",
                "      - seeds: \"" + seed + ":" + storagePort + "\"",
                "listen_address: " + address,
                "rpc_address: " + address,
                "storage_port: " + storagePort,
                "native_transport_port: " + nativePort,
                "start_native_transport: true",
                "endpoint_snitch: GossipingPropertyFileSnitch",
                "auto_snapshot: false",
                // a node of a test's cluster joins with no data to stream: it need not bootstrap
                "auto_bootstrap: false",
                "concurrent_compactors: 1",
                "");
        Files.writeString(dir.resolve("cassandra.yaml"), yaml);
        Files.writeString(dir.resolve("cassandra-rackdc.properties"), "dc=" + dataCentre + "\nrack=rack1\n");
        Files.writeString(dir.resolve("logback.xml"), "<configuration><appender name=\"FILE\""
                + " class=\"ch.qos.logback.core.FileAppender\"><file>" + dir.resolve("system.log") + "</file><encoder>"
                + "<pattern>%d %-5level [%thread] %logger{20} - %msg%n</pattern></encoder></appender>"
                + "<root level=\"INFO\"><appender-ref ref=\"FILE\"/></root></configuration>\n");
    }

    private static String serverClassPath() throws IOException {
        String file = System.getProperty("cassandra.classpath.file");
        if (file == null || !Files.isRegularFile(Paths.get(file))) {
            throw new IllegalStateException("the Cassandra server's class path file (" + file + ") is missing: build"
                    + " lockmanager-stores/cassandra-test-server first, for example with -am");
        }
        return Files.readString(Paths.get(file)).trim();
    }

    public static int freePort(String address) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(address, 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String toString() {
        return "Cassandra node " + name + " (" + dataCentre + ") at " + address + ":" + nativePort;
    }
}
