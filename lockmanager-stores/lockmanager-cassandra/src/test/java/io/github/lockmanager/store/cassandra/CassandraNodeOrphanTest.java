package io.github.lockmanager.store.cassandra;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A JVM that started a Cassandra node and was then killed (SIGKILL: no shutdown hook runs) leaves no node behind: the
 * node ends within seconds instead of holding its ports and memory until someone finds it.
 */
class CassandraNodeOrphanTest {
    /** The JVM killed: starts a node, says where it listens, and waits. */
    public static final class Starter {
        public static void main(String[] args) throws Exception {
            CassandraNode node = new CassandraNode("orphan", "127.0.0.1", "dc1", "127.0.0.1",
                    CassandraNode.freePort("127.0.0.1"));
            node.startFresh();
            System.out.println("UP " + node.nativePort() + " " + ProcessHandle.current().descendants()
                    .filter(p -> p.info().command().map(c -> c.endsWith("java")).orElse(false))
                    .findFirst().map(ProcessHandle::pid).orElse(-1L));
            System.out.flush();
            Thread.sleep(TimeUnit.MINUTES.toMillis(10));
        }
    }

    @Test
    void aNodeEndsWhenTheJvmThatStartedItIsKilled() throws Exception {
        List<String> command = new ArrayList<>(List.of(Paths.get(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path")));
        for (String property : List.of("cassandra.classpath.file", "cassandra.dir")) {
            if (System.getProperty(property) != null) {
                command.add("-D" + property + "=" + System.getProperty(property));
            }
        }
        command.add(Starter.class.getName());
        Process starter = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(starter.getInputStream(),
                    StandardCharsets.UTF_8));
            String line;
            String[] up = null;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("UP ")) {
                    up = line.split(" ");
                    break;
                }
            }
            assertThat(up).as("the starter's node came up").isNotNull();
            int port = Integer.parseInt(up[1]);
            long nodePid = Long.parseLong(up[2]);
            assertThat(nodePid).as("the node's process").isPositive();
            assertThat(listening(port)).isTrue();

            starter.destroyForcibly().waitFor(30, TimeUnit.SECONDS);

            await().atMost(Duration.ofSeconds(30)).until(() -> ProcessHandle.of(nodePid).map(p -> !p.isAlive())
                    .orElse(true));
            assertThat(listening(port)).as("the node's CQL port after its starter was killed").isFalse();
        } finally {
            starter.destroyForcibly();
        }
    }

    private static boolean listening(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
