package io.github.lockmanager.it.admin;

import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.admin.LockAdmin;
import io.github.lockmanager.cli.LockManagerCli;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.store.hbase.HBaseClusterAccess;
import io.github.lockmanager.store.hbase.HBaseLockStore;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The {@code lockmanager} command and the admin page's engine on the HBase mini cluster, on a real manager's lock. */
class HBaseAdminToolsTest {
    private static final String TABLE = "lockmanager_cli";

    private final String client = "cli-" + UUID.randomUUID().toString().substring(0, 8);
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private final CountDownLatch release = new CountDownLatch(1);
    private LockManager manager;

    @AfterEach
    void close() {
        release.countDown();
        if (manager != null) {
            manager.close();
        }
    }

    private int run(String... args) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        Configuration conf = HBaseClusterAccess.connection().getConfiguration();
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--hbase-quorum", conf.get("hbase.zookeeper.quorum"), "--hbase-port",
                conf.get("hbase.zookeeper.property.clientPort"), "--table", TABLE, "--client", client));
        CommandLine line = LockManagerCli.commandLine();
        line.setOut(new PrintWriter(out, true));
        line.setErr(new PrintWriter(err, true));
        return line.execute(all.toArray(String[]::new));
    }

    @Test
    void listShowAbortForceReleaseAndCleanupWorkOnHBase() throws Exception {
        HBaseLockStore store = HBaseLockStore.builder(HBaseClusterAccess.connection()).tableName(TABLE).build();
        store.initialize();
        manager = LockManagerBuilder.newBuilder().store(store).clientId(client).nodeId("hbase-node")
                .abortPollInterval(Duration.ofMillis(100)).shutdownTimeout(Duration.ofSeconds(1)).build();
        CompletableFuture<LockResource> taken = new CompletableFuture<>();
        CompletableFuture<Void> interrupted = new CompletableFuture<>();
        Thread holder = new Thread(() -> {
            try (LockResource lock = manager.lock("nightly <job>")) {
                taken.complete(lock);
                try {
                    release.await();
                } catch (InterruptedException e) {
                    interrupted.complete(null);
                    release.await();
                }
            } catch (Exception e) {
                taken.completeExceptionally(e);
            }
        }, "hbase-holder");
        holder.start();
        LockResource lock = taken.get(60, TimeUnit.SECONDS);

        assertThat(run("list")).as(err.toString()).isZero();
        assertThat(out.toString()).contains("nightly <job>", "hbase-node", "hbase-holder", "EXCLUSIVE");
        assertThat(run("list", "--format", "json")).isZero();
        assertThat(out.toString()).contains("\"key\": \"nightly \\u003cjob\\u003e\"");
        assertThat(run("show", "nightly <job>")).isZero();
        assertThat(out.toString()).contains(Long.toString(lock.getFencingToken()));
        assertThat(run("show", "never-locked")).isEqualTo(3);

        LockAdmin admin = LockAdmin.builder(store).clientId(client).build();
        assertThat(admin.snapshot().locks()).singleElement()
                .satisfies(r -> assertThat(r.nodeId()).isEqualTo("hbase-node"));

        assertThat(run("abort", "nightly <job>", "--by", "it-test")).isZero();
        interrupted.get(60, TimeUnit.SECONDS);
        assertThat(run("force-release", "nightly <job>", "--by", "it-test")).isZero();
        assertThat(out.toString()).contains("Released 'nightly <job>'", "hbase-node");
        await().atMost(Duration.ofSeconds(60)).until(lock::isLost);
        assertThat(run("cleanup")).isZero();
        assertThat(out.toString()).contains("Deleted");
        assertThat(admin.inspect("nightly <job>", LockLevel.DC)).isEmpty();
    }
}
