package io.github.lockmanager.cli;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.jdbc.JdbcLockStore;
import io.github.lockmanager.store.redis.RedisLockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The command against the local PostgreSQL, MariaDB and Redis, with locks held by real managers on the same table. */
class LockManagerCliTest {
    private static final String TABLE = "lockmanager_cli";

    private final String client = "cli-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<LockManager> managers = new ArrayList<>();
    private final ExecutorService holderThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "cli-holder"));
    private final ExecutorService readerThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "cli-reader"));
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @AfterEach
    void close() {
        holderThread.shutdownNow();
        readerThread.shutdownNow();
        managers.forEach(LockManager::close);
    }

    private static String url(String database) {
        return database.equals("postgres") ? System.getProperty("lockmanager.postgres.url",
                "jdbc:postgresql://127.0.0.1:5432/test") : System.getProperty("lockmanager.mariadb.url",
                "jdbc:mariadb://127.0.0.1:3306/test");
    }

    private static String user(String database) {
        return database.equals("postgres") ? "postgres" : "root";
    }

    private static String redisUri() {
        return System.getProperty("redis.uri", "redis://127.0.0.1:6379");
    }

    private static LockStore store(String database) {
        return database.equals("redis") ? RedisLockStore.builder(redisUri()).keyPrefix(TABLE + ":").build()
                : JdbcLockStore.builder(new DriverDataSource(url(database), user(database), "")).tableName(TABLE).build();
    }

    /** The options that name the store of {@code database}. */
    private static List<String> storeOptions(String database) {
        return database.equals("redis") ? List.of("--redis-uri", redisUri(), "--redis-prefix", TABLE + ":")
                : List.of("--jdbc-url", url(database), "--user", user(database), "--table", TABLE);
    }

    private LockManager node(String database, String node) throws Exception {
        LockManager manager = LockManagerBuilder.newBuilder().store(store(database))
                .clientId(client).nodeId(node).abortPollInterval(Duration.ofMillis(100))
                .shutdownTimeout(Duration.ofSeconds(1)).build();
        managers.add(manager);
        return manager;
    }

    private int run(String database, String... args) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(storeOptions(database));
        all.addAll(List.of("--client", client));
        CommandLine line = LockManagerCli.commandLine();
        line.setOut(new PrintWriter(out, true));
        line.setErr(new PrintWriter(err, true));
        return line.execute(all.toArray(String[]::new));
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgres", "mariadb", "redis"})
    void listShowAbortForceReleaseAndCleanupWorkOnTheLocksOfRealManagers(String database) throws Exception {
        LockManager a = node(database, "node-a");
        LockManager b = node(database, "node-b");
        LockResource job = holderThread.submit(() -> a.lock("nightly-job")).get(30, TimeUnit.SECONDS);
        // on a thread of its own: its node interrupts the holder when the lock is force-released
        LockResource report = readerThread.submit(() -> b.lock(LockSpec.shared("report <1>"))).get(30, TimeUnit.SECONDS);

        assertThat(run(database, "list")).isZero();
        assertThat(out.toString()).contains("KEY").contains("nightly-job").contains("node-a").contains("cli-holder")
                .contains("report <1>").contains("SHARED").contains(Long.toString(job.getFencingToken()));
        assertThat(run(database, "list", "--node", "node-b", "--format", "json")).isZero();
        assertThat(out.toString()).contains("\"key\": \"report \\u003c1\\u003e\"").doesNotContain("nightly-job");
        assertThat(run(database, "list", "--prefix", "night")).isZero();
        assertThat(out.toString()).contains("nightly-job").doesNotContain("report");
        LockResource permit = holderThread.submit(() -> a.lock(LockSpec.permits("partner-api", 3))).get(30, TimeUnit.SECONDS);
        assertThat(run(database, "list", "--prefix", "partner")).isZero();
        assertThat(out.toString()).contains("partner-api").contains("PERMIT:3");
        assertThat(run(database, "list", "--prefix", "partner", "--format", "json")).isZero();
        assertThat(out.toString()).contains("\"mode\": \"PERMIT\", \"permits\": 3");
        permit.close();

        assertThat(run(database, "show", "nightly-job")).isZero();
        assertThat(out.toString()).contains("node-a").contains("EXCLUSIVE");
        assertThat(run(database, "show", "never-locked")).isEqualTo(LockManagerCli.NOT_LOCKED);
        assertThat(err.toString()).contains("'never-locked'").contains("is not locked");

        assertThat(run(database, "abort", "nightly-job")).isZero();
        await().atMost(Duration.ofSeconds(30)).until(() -> a.getLocks().stream()
                .anyMatch(lock -> lock.getKey().equals("nightly-job") && lock.getStatus().name().equals("ABORT")));

        assertThat(run(database, "force-release", "report <1>", "--by", "ops-erin")).as(err::toString).isZero();
        assertThat(out.toString()).contains("node-b").contains("ops-erin");
        await().atMost(Duration.ofSeconds(30)).until(report::isLost);
        assertThat(run(database, "force-release", "report <1>", "--by", "ops-erin")).as(err::toString)
                .isEqualTo(LockManagerCli.NOT_LOCKED);

        assertThat(run(database, "cleanup")).isZero();
        assertThat(out.toString()).contains(database.equals("redis") ? "Deleted 0" : "Deleted").contains("idle records");
        job.close();
    }

    @Test
    void anUnreachableStoreAWrongUrlAMissingTableAndBadUsageGetTheirExitCodes() {
        CommandLine line = LockManagerCli.commandLine();
        line.setOut(new PrintWriter(out, true));
        line.setErr(new PrintWriter(err, true));
        assertThat(line.execute("list", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/test", "--user", "postgres"))
                .isEqualTo(LockManagerCli.UNREACHABLE);
        assertThat(err.toString()).contains("127.0.0.1:1");
        assertThat(line.execute("list", "--jdbc-url", "postgres://127.0.0.1/test")).isEqualTo(2);
        assertThat(err.toString()).contains("must start with 'jdbc:'");
        assertThat(line.execute("list", "--jdbc-url", url("postgres"), "--user", "postgres", "--table",
                "no_such_lock_table")).isEqualTo(LockManagerCli.UNREACHABLE);
        assertThat(err.toString()).contains("no lock table 'no_such_lock_table'");
        assertThat(line.execute("show")).isEqualTo(2);
        assertThat(line.execute("force-release", "k", "--jdbc-url", url("postgres"))).as("--by is required")
                .isEqualTo(2);
        assertThat(line.execute("list", "--jdbc-url", "jdbc:x:y", "--hbase-quorum", "zk")).as("one store only")
                .isEqualTo(2);
    }

    @Test
    void serveShowsTheLocksOnAPageUntilStopped() throws Exception {
        LockManager a = node("postgres", "node-a");
        holderThread.submit(() -> a.lock("served-job")).get(30, TimeUnit.SECONDS);
        assertThat(run("postgres", "serve", "--actions", "--port", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("--actions needs --admin-user");

        CompletableFuture<Integer> serving = new CompletableFuture<>();
        Thread server = new Thread(() -> serving.complete(run("postgres", "serve", "--port", "0",
                "--held-too-long", "PT1H")), "cli-serve");
        server.start();
        Pattern address = Pattern.compile("at (http://127\\.0\\.0\\.1:\\d+/) \\(read-only\\)");
        Matcher url = await().atMost(Duration.ofSeconds(30)).until(() -> address.matcher(out.toString()), Matcher::find);
        HttpResponse<String> locks = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(url.group(1) + "locks.json")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(locks.body()).contains("\"key\": \"served-job\"", "\"node\": \"node-a\"",
                "\"heldTooLongThreshold\": \"PT1H\"");

        server.interrupt();
        assertThat(serving.get(30, TimeUnit.SECONDS)).isZero();
    }

    /** What a new operator tried and the command got wrong: each fails on the version before it was mended. */
    @Test
    void levelsClientsFormatsCaseVersionAndABusyPortAreAsAnOperatorExpects() throws Exception {
        LockManager a = node("postgres", "node-a");
        LockResource dc = holderThread.submit(() -> a.lock("only-dc")).get(30, TimeUnit.SECONDS);
        LockResource xdc = holderThread.submit(() -> a.lock("only-xdc", LockLevel.XDC)).get(30, TimeUnit.SECONDS);

        assertThat(run("postgres", "list", "--level", "XDC")).isZero();
        assertThat(out.toString()).contains("only-xdc").doesNotContain("only-dc");
        assertThat(run("postgres", "list", "--level", "dc", "--format", "JSON")).as("either case").isZero();
        assertThat(out.toString()).contains("\"key\": \"only-dc\"").doesNotContain("only-xdc");
        assertThat(run("postgres", "list", "--status", "running")).isZero();
        assertThat(out.toString()).contains("only-dc").contains("only-xdc");

        assertThat(run("postgres", "list", "--all-clients")).isZero();
        assertThat(out.toString()).startsWith("CLIENT").contains(client);

        // a client with no locks: the list stays empty, and standard error names the clients that hold some
        CommandLine other = LockManagerCli.commandLine();
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        other.setOut(new PrintWriter(out, true));
        other.setErr(new PrintWriter(err, true));
        List<String> args = new ArrayList<>(List.of("list"));
        args.addAll(storeOptions("postgres"));
        args.addAll(List.of("--client", client + "-typo"));
        assertThat(other.execute(args.toArray(String[]::new))).isZero();
        assertThat(out.toString()).doesNotContain("only-dc");
        assertThat(err.toString()).contains("client '" + client + "-typo' holds no locks; other clients do: ")
                .contains("'" + client + "' (2 locks)").contains("--all-clients");
        assertThat(run("postgres", "list", "--all-clients", "--format", "json")).isZero();
        assertThat(out.toString()).contains("\"client\": \"" + client + "\"");

        assertThat(run("postgres", "abort", "only-xdc", "--level", "XDC", "--format", "json")).isZero();
        assertThat(out.toString().trim()).startsWith("{").contains("\"key\": \"only-xdc\"", "\"aborted\": true");
        assertThat(run("postgres", "force-release", "only-xdc", "--level", "XDC", "--by", "ops", "--format", "json"))
                .isZero();
        assertThat(out.toString().trim()).startsWith("[").contains("\"key\": \"only-xdc\"", "\"node\": \"node-a\"");

        CommandLine line = LockManagerCli.commandLine();
        line.setOut(new PrintWriter(out, true));
        out.getBuffer().setLength(0);
        assertThat(line.execute("--version")).isZero();
        assertThat(out.toString()).matches("(?s)lockmanager \\d+\\.\\d+\\.\\d+.*").doesNotContain("development");

        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertThat(run("postgres", "serve", "--port", Integer.toString(taken.getLocalPort()))).as("bad usage")
                    .isEqualTo(2);
            assertThat(err.toString()).contains("127.0.0.1:" + taken.getLocalPort()).contains("in use")
                    .contains("--port").doesNotContain("INTERNAL_ERROR");
        }
        xdc.close();
        dc.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgres", "redis"})
    void waitersListsWhoWaitsInTurnOnAnyNode(String database) throws Exception {
        LockManager a = node(database, "node-a");
        LockManager b = node(database, "node-b");
        LockResource held = holderThread.submit(() -> a.lock("queued-job")).get(30, TimeUnit.SECONDS);
        CompletableFuture<io.github.lockmanager.TaskLock> waiting = b.lockForTaskAsync(
                LockSpec.of("queued-job").fair(true), Duration.ofMinutes(1),
                io.github.lockmanager.TaskOptions.named("next-run")).toCompletableFuture();
        await().atMost(Duration.ofSeconds(30)).until(() -> b.getWaiters().size() == 1);

        assertThat(run(database, "waiters")).isZero();
        assertThat(out.toString()).contains("KEY", "PLACE", "queued-job", "EXCLUSIVE", "node-b", "task:next-run");
        assertThat(run(database, "waiters", "--format", "json")).isZero();
        assertThat(out.toString()).contains("\"owner\": \"task:next-run\"", "\"order\": ");
        assertThat(run(database, "list")).isZero();
        assertThat(out.toString()).as("a request is no lock").contains("queued-job").doesNotContain("task:next-run");
        waiting.cancel(false);
        await().atMost(Duration.ofSeconds(30)).until(() -> b.getWaiters().isEmpty());
        holderThread.submit(held::close).get(30, TimeUnit.SECONDS);
    }

    @Test
    void everyCommandHasHelp() {
        for (String command : List.of("list", "show", "waiters", "abort", "force-release", "cleanup", "serve")) {
            CommandLine line = LockManagerCli.commandLine();
            line.setOut(new PrintWriter(out, true));
            assertThat(line.execute(command, "--help")).isZero();
            assertThat(out.toString()).contains("Usage: lockmanager " + command);
        }
        assertThat(LockManagerCli.commandLine().execute("--help")).isZero();
    }
}
