package io.github.lockmanager.it.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Deadlocks across processes: each process holds one key and waits fairly for the next one's; the cycle closes over 2
 * and over 3 processes, on PostgreSQL and on Redis. Exactly one wait ends, with {@code DEADLOCK} and a message that
 * names every key of the cycle, and every other owner gets its key.
 */
class DeadlockProcessesTest {
    @TempDir
    Path dir;

    @Test
    void twoProcessesOnPostgres() throws Exception {
        cycle(Stores.postgres("lockmanager_cluster"), 2);
    }

    @Test
    void threeProcessesOnRedis() throws Exception {
        cycle(Stores.redis("lockmanager_cluster"), 3);
    }

    /** The line that says how the node's wait ended. */
    private static String end(Children.Child node) throws InterruptedException {
        while (true) {
            String line = node.await("", Duration.ofMinutes(2));
            if (line.startsWith("GOT") || line.startsWith("FAILED")) {
                return line;
            }
        }
    }

    private void cycle(Stores.Target target, int owners) throws Exception {
        String client = "cycle-" + UUID.randomUUID().toString().substring(0, 8);
        try (Children children = new Children(dir)) {
            List<Children.Child> nodes = new ArrayList<>();
            for (int n = 0; n < owners; n++) {
                Map<String, String> settings = target.settings(client, "node" + n);
                settings.put("node.mode", "cycle");
                settings.put("node.first", "k" + n);
                settings.put("node.second", "k" + (n + 1) % owners);
                Children.Child node = children.start(settings);
                node.await("HELD", Duration.ofMinutes(1));
                nodes.add(node);
            }
            nodes.forEach(node -> node.send("go"));
            List<String> ends = new ArrayList<>();
            for (Children.Child node : nodes) {
                ends.add(end(node));
            }
            for (Children.Child node : nodes) {
                node.await("DONE", Duration.ofMinutes(1));
            }
            assertThat(ends).filteredOn(line -> line.startsWith("FAILED")).singleElement().satisfies(line -> {
                assertThat(line).startsWith("FAILED DEADLOCK").contains("a cycle of " + owners + " waits");
                for (int n = 0; n < owners; n++) {
                    assertThat(line).contains("'k" + n + "'");
                }
            });
            assertThat(ends).filteredOn(line -> line.startsWith("GOT")).hasSize(owners - 1);
        }
    }
}
