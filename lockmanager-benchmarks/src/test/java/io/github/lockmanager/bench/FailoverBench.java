package io.github.lockmanager.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.github.lockmanager.store.jdbc.JdbcLockStore;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.github.lockmanager.bench.FairnessBench.median;

/**
 * Figure 18: how long an election goes without a leader after its leader's process is killed with SIGKILL, from the
 * kill to another member's "elected" callback, with 3 members, each in a JVM of its own ({@link FailoverMember}), and
 * the same 3 s given to each library as its lease, time to live or session timeout: ours ({@code LeaderElection}) on
 * PostgreSQL beside Spring Integration's {@code LockRegistryLeaderInitiator} on its {@code JdbcLockRegistry} on the same
 * database, and ours on Redis beside Curator's {@code LeaderLatch} on a ZooKeeper test server (curator-test) on this
 * machine. Each a median of {@link #ROUNDS} kills, each in an election of its own.
 */
final class FailoverBench {
    private static final int ROUNDS = 5;
    private static final int MEMBERS = 3;
    private static final Duration LEASE = Duration.ofSeconds(3);
    /** A ZooKeeper tick short enough that a 3 s session timeout is allowed (at least two ticks). */
    private static final int ZOOKEEPER_TICK_MILLIS = 500;

    private final Settings settings;
    private final Report report;
    private final String run = Long.toString(System.currentTimeMillis(), 36);

    FailoverBench(Settings settings, Report report) {
        this.settings = settings;
        this.report = report;
    }

    void run() throws Exception {
        Contenders.Database.POSTGRESQL.createTables();
        try (HikariDataSource pool = Contenders.Database.POSTGRESQL.pool("failover-setup", 1)) {
            // made once here: three members creating the table at once would race in the catalog
            JdbcLockStore.builder(pool).tableName(FailoverMember.TABLE).build().initialize();
        }
        double[] oursPostgres = rounds(FailoverMember.OURS_POSTGRESQL, null);
        double[] spring = rounds(FailoverMember.SPRING_JDBC, null);
        double[] oursRedis = rounds(FailoverMember.OURS_REDIS, null);
        double[] curator;
        Path data = Files.createTempDirectory("bench-zookeeper");
        InstanceSpec spec = new InstanceSpec(data.toFile(), -1, -1, -1, true, -1, ZOOKEEPER_TICK_MILLIS, -1);
        try (TestingServer zookeeper = new TestingServer(spec, true)) {
            curator = rounds(FailoverMember.CURATOR, zookeeper.getConnectString());
        }
        String figure = "18. leader failover after SIGKILL of the leader: ";
        String setup = MEMBERS + " member processes, a lease (time to live, session timeout) of " + LEASE.toSeconds()
                + " s each, " + oursPostgres.length + " kills each; from the kill to the next member's elected callback, "
                + "median (all: ";
        report.add(figure + "lockmanager vs Spring Integration LockRegistryLeaderInitiator", "PostgreSQL",
                seconds(median(oursPostgres)), seconds(median(spring)), median(oursPostgres) / median(spring),
                setup + list(oursPostgres) + " against " + list(spring) + "); Spring's JdbcLockRegistry at its "
                        + "defaults otherwise (a try every 50 ms, a heartbeat every 500 ms)");
        report.add(figure + "lockmanager vs Curator LeaderLatch", "Redis vs ZooKeeper", seconds(median(oursRedis)),
                seconds(median(curator)), median(oursRedis) / median(curator), setup + list(oursRedis) + " against "
                        + list(curator) + "); Curator's on one ZooKeeper test server (curator-test), tick "
                        + ZOOKEEPER_TICK_MILLIS + " ms");
    }

    /** The failover times of {@link #ROUNDS} kills with {@code library}, in seconds, sorted. */
    private double[] rounds(String library, String connect) throws Exception {
        int rounds = settings.smoke() ? 1 : ROUNDS;
        double[] times = new double[rounds];
        for (int round = 0; round < rounds; round++) {
            times[round] = once(library, "failover-" + run + "-" + library + "-" + round, connect);
        }
        Arrays.sort(times);
        return times;
    }

    /** One election of {@link #MEMBERS} processes: its leader killed, the seconds until the next is elected. */
    private double once(String library, String name, String connect) throws Exception {
        BlockingQueue<Integer> elected = new LinkedBlockingQueue<>();
        BlockingQueue<Integer> ready = new LinkedBlockingQueue<>();
        List<Process> members = new ArrayList<>();
        try {
            for (int i = 0; i < MEMBERS; i++) {
                members.add(start(library, name, "m" + i, connect, i, ready, elected));
            }
            for (int i = 0; i < MEMBERS; i++) {
                require(ready.poll(2, TimeUnit.MINUTES), library + ": a member did not join within 2 minutes");
            }
            Integer leader = require(elected.poll(2, TimeUnit.MINUTES), library + ": no member was elected");
            // the others have asked and wait (a member that joined just now may still be making its first ask)
            Thread.sleep(1000);
            long killed = System.nanoTime();
            members.get(leader).destroyForcibly();
            Integer next = require(elected.poll(2, TimeUnit.MINUTES), library + ": no member followed the killed leader");
            long took = System.nanoTime() - killed;
            if (next.equals(leader)) {
                throw new IllegalStateException(library + ": the killed member was elected again");
            }
            return took / 1e9;
        } finally {
            for (Process member : members) {
                member.destroyForcibly();
            }
            for (Process member : members) {
                member.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    private static Process start(String library, String name, String member, String connect, int index,
                                 BlockingQueue<Integer> ready, BlockingQueue<Integer> elected) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp",
                System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                FailoverMember.class.getName(), library, name, member, Long.toString(LEASE.toMillis())));
        if (connect != null) {
            command.add(connect);
        }
        File log = Files.createTempFile("bench-failover-" + member, ".log").toFile();
        log.deleteOnExit();
        Process process = new ProcessBuilder(command).redirectError(log).start();
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                    if (line.equals("READY")) {
                        ready.add(index);
                    } else if (line.equals("LEADER")) {
                        elected.add(index);
                    }
                }
            } catch (java.io.IOException ended) {
                // the member was killed
            }
        }, "bench-failover-" + member);
        reader.setDaemon(true);
        reader.start();
        return process;
    }

    private static <T> T require(T value, String what) {
        if (value == null) {
            throw new IllegalStateException(what);
        }
        return value;
    }

    private static String seconds(double value) {
        return String.format(Locale.ROOT, "%.2f s", value);
    }

    private static String list(double[] values) {
        StringBuilder all = new StringBuilder();
        for (double value : values) {
            all.append(all.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.2f", value));
        }
        return all.toString();
    }
}
