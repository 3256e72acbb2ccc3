package io.github.lockmanager.it.cluster;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Leader elections across 3 node processes on PostgreSQL (a subclass names another store by {@link #target()}):
 * each leader writes with its term to a {@link FencedFile} after {@code Term.check}, every 10 ms. A leader killed
 * with SIGKILL is followed within its lease; one stopped with SIGSTOP past its lease is followed too, and on waking is
 * told its term is over, its guard refusing its writes (a write its check had passed before the stop is the fenced
 * file's to refuse); one cut off from the store by a proxy is revoked before another member is elected, by a counter
 * the processes share; a crash and restart of a store server of the test's own elects the next leader only after the
 * leader's revocation. Prints each failover time.
 */
class LeaderProcessesTest {
    static final long LEASE = 3_000;
    static final Duration REPORT = Duration.ofSeconds(60);

    @TempDir
    Path dir;
    private final Stores.Target target = target();
    private Children children;
    private String client;
    private TcpProxy proxy;
    final List<Children.Child> members = new ArrayList<>();

    /** The store the nodes share. */
    Stores.Target target() {
        return Stores.postgres("lockmanager_leaders");
    }

    @BeforeEach
    void start() {
        children = new Children(dir);
        client = "leaders-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void stop() throws Exception {
        children.close();
        if (proxy != null) {
            proxy.close();
        }
    }

    /** A member process, reaching the store directly, or through {@code through} when it is given. */
    private Children.Child member(String node, TcpProxy through) throws Exception {
        return member(node, through == null ? -1 : through.port(), Map.of());
    }

    /**
     * A member process reaching the store at {@code port} on the loopback address ({@link #throughProxy}), or directly
     * when it is -1, with {@code extra} settings.
     */
    Children.Child member(String node, int port, Map<String, String> extra) throws Exception {
        Map<String, String> settings = target.settings(client, node);
        if (port != -1) {
            settings = throughProxy(settings, port);
        }
        settings.putAll(extra);
        settings.put("node.mode", "lead");
        settings.put("node.election", "singleton");
        settings.put("node.fenced", dir.resolve("fenced").toString());
        settings.put("node.counter", dir.resolve("counter").toString());
        settings.put("node.lease", Long.toString(LEASE));
        settings.put("node.renewal", "1000");
        settings.put("node.poll", "200");
        Children.Child member = children.start(settings);
        members.add(member);
        member.await("STARTED", REPORT);
        return member;
    }

    private void threeMembers() throws Exception {
        for (String node : List.of("a", "b", "c")) {
            member(node, null);
        }
    }

    /** The settings of a node of this store that reaches it through a proxy on {@code port}. */
    Map<String, String> throughProxy(Map<String, String> settings, int port) {
        String url = settings.get("node.jdbc.url");
        String direct = "127.0.0.1:" + Stores.POSTGRES_PORT;
        assumeTrue(url.contains(direct), "the database is not the local default: " + url);
        // a cut connection fails the driver's reads within 2 s, inside the store's operation timeout
        settings.put("node.jdbc.url", url.replace(direct, "127.0.0.1:" + port)
                + (url.contains("?") ? "&" : "?") + "connectTimeout=1&socketTimeout=2");
        return settings;
    }

    /**
     * A store server of the test's own, which it crashes and starts again on the same port ({@code -1}: the store the
     * target names, reached directly); {@code settings} are what the members need to know of it beyond its port, and
     * {@code losesData} whether a crash loses its records (Redis without persistence) or keeps what was committed.
     */
    record OwnServer(int port, Map<String, String> settings, boolean losesData, Step crash, Step start, Step stop)
            implements AutoCloseable {
        interface Step {
            void run() throws Exception;
        }

        @Override
        public void close() throws Exception {
            stop.run();
        }
    }

    /** This store's own server for the restart case, or {@code null} where none can be run here. */
    OwnServer ownServer() throws Exception {
        if (!target.name().equals("PostgreSQL") || !PostgresServerProcess.available()) {
            return null;
        }
        PostgresServerProcess postgres = new PostgresServerProcess();
        return new OwnServer(postgres.port, Map.of(), false, postgres::crash, postgres::start, postgres::close);
    }

    /** The store's port on the loopback address, which a proxy forwards to. */
    int storePort() {
        return Stores.POSTGRES_PORT;
    }

    /** The member among {@code among} that reports being elected next, and its term. */
    static Elected nextElected(List<Children.Child> among) throws InterruptedException {
        long deadline = System.nanoTime() + REPORT.toNanos();
        while (System.nanoTime() < deadline) {
            for (Children.Child member : among) {
                String line = member.poll("ELECTED", Duration.ofMillis(20));
                if (line != null) {
                    String[] parts = line.split(" ");
                    return new Elected(member, Long.parseLong(parts[1]), Long.parseLong(parts[2]));
                }
            }
        }
        throw new AssertionError("no member reported ELECTED within " + REPORT);
    }

    /** A member's election: its term and the stamp of the shared counter taken when it was told. */
    record Elected(Children.Child member, long term, long stamp) {
    }

    static int[] writes(Children.Child member) throws InterruptedException {
        member.send("report");
        String[] parts = member.await("WRITES", REPORT).split(" ");
        return new int[] {Integer.parseInt(parts[1]), Integer.parseInt(parts[2])};
    }

    /** Waits until {@code leader} has had a write admitted. */
    static void awaitWrites(Children.Child leader) throws InterruptedException {
        long deadline = System.nanoTime() + REPORT.toNanos();
        while (writes(leader)[0] == 0) {
            assertThat(System.nanoTime()).as("a write of the leader admitted in time").isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private List<Children.Child> others(Children.Child leader) {
        return members.stream().filter(m -> m != leader).toList();
    }

    @Test
    void aLeaderKilledIsFollowedWithinItsLeaseAndNoWriteOfAFormerTermIsAdmitted() throws Exception {
        threeMembers();
        Elected first = nextElected(members);
        awaitWrites(first.member());

        long killed = System.nanoTime();
        first.member().process.destroyForcibly();
        Elected next = nextElected(others(first.member()));

        Duration failover = Duration.ofNanos(System.nanoTime() - killed);
        System.out.printf("%s: leader killed (SIGKILL), next leader elected after %d ms (lease %d ms)%n",
                target.name(), failover.toMillis(), LEASE);
        assertThat(next.term()).isGreaterThan(first.term());
        // the lease ends without a release to announce: a waiter looks again when it ends (where the store announces
        // releases: the refusal showed when), or at its next poll
        assertThat(failover).as("within the lease and a waiter's look").isLessThan(Duration.ofMillis(LEASE + 3_000));
        for (Children.Child member : others(first.member())) {
            assertThat(writes(member)[1]).as("writes refused by the fenced file on " + member.id).isZero();
        }
    }

    @Test
    void aLeaderPausedPastItsLeaseIsFollowedAndOnWakingItsTermIsOverBeforeItWritesAgain() throws Exception {
        threeMembers();
        Elected first = nextElected(members);
        long stopped = System.nanoTime();
        first.member().signal("STOP");
        try {
            Elected next = nextElected(others(first.member()));
            System.out.printf("%s: leader stopped (SIGSTOP), next leader elected after %d ms (lease %d ms)%n",
                    target.name(), Duration.ofNanos(System.nanoTime() - stopped).toMillis(), LEASE);
            assertThat(next.term()).isGreaterThan(first.term());
            awaitWrites(next.member());
        } finally {
            first.member().signal("CONT");
        }

        String revoked = first.member().await("REVOKED " + first.term(), REPORT);
        int[] late = writes(first.member());
        System.out.printf("%s: the woken leader was told '%s'; %d of its writes refused by the fenced file%n",
                target.name(), revoked, late[1]);
        assertThat(revoked).doesNotEndWith("null");
        // at most the one write whose check passed just before the stop
        assertThat(late[1]).as("late writes the fenced file refused").isLessThanOrEqualTo(1);
    }

    /**
     * The store's server crashes while a leader writes. Where the crash loses the records (Redis without persistence)
     * the server is back at once, empty: the leader, whose next renewal finds its lock gone, is revoked, and the store's
     * restart quarantine (here the lease) keeps every grant back until any lease granted before the restart has ended.
     * Where it keeps them (PostgreSQL), the server stays down until the leader, unable to renew, is revoked, and comes
     * back with the leader's expired row. Either way the next leader, with a higher term, is elected after that
     * revocation by the processes' shared counter, and the fenced file refuses no write.
     */
    @Test
    void aStoreRestartElectsTheNextLeaderOnlyAfterTheLeaderIsRevoked() throws Exception {
        try (OwnServer server = ownServer()) {
            assumeTrue(server != null, () -> target.name() + ": no server of the test's own to restart here");
            for (String node : List.of("a", "b", "c")) {
                member(node, server.port(), server.settings());
            }
            Elected first = nextElected(members);
            awaitWrites(first.member());

            long down = System.nanoTime();
            server.crash().run();
            if (server.losesData()) {
                server.start().run();
            }
            String[] revoked = first.member().await("REVOKED " + first.term(), REPORT).split(" ");
            long toldAfter = Duration.ofNanos(System.nanoTime() - down).toMillis();
            if (!server.losesData()) {
                server.start().run();
            }
            Elected next = nextElected(members);
            System.out.printf("%s: server crashed and restarted%s; the leader told %s after %d ms; next leader (%s) "
                            + "elected after %d ms (lease %d ms)%n", target.name(),
                    server.losesData() ? " at once, empty" : " after the revocation", revoked[2], toldAfter,
                    next.member().id, Duration.ofNanos(System.nanoTime() - down).toMillis(), LEASE);
            assertThat(Long.parseLong(revoked[3])).as("the leader's revocation, by the shared counter, comes before "
                    + "the next election").isLessThan(next.stamp());
            assertThat(next.term()).isGreaterThan(first.term());
            awaitWrites(next.member());
            for (Children.Child member : members) {
                assertThat(writes(member)[1]).as("writes refused by the fenced file on " + member.id).isZero();
            }
        }
    }

    @Test
    void aLeaderCutOffFromTheStoreIsRevokedBeforeAnotherMemberIsElected() throws Exception {
        proxy = new TcpProxy(storePort());
        Children.Child cutOff = member("a", proxy);
        Elected first = nextElected(List.of(cutOff));
        member("b", null);
        member("c", null);
        awaitWrites(cutOff);

        long cut = System.nanoTime();
        proxy.cut();

        String[] revoked = cutOff.await("REVOKED " + first.term(), REPORT).split(" ");
        long toldAfter = Duration.ofNanos(System.nanoTime() - cut).toMillis();
        Elected next = nextElected(others(cutOff));
        System.out.printf("%s: leader cut off from the store, told %s after %d ms; next leader elected after %d ms "
                        + "(lease %d ms)%n", target.name(), revoked[2], toldAfter,
                Duration.ofNanos(System.nanoTime() - cut).toMillis(), LEASE);
        assertThat(revoked[2]).isEqualTo("RENEWAL_UNCONFIRMED");
        assertThat(Long.parseLong(revoked[3])).as("the cut-off leader's revocation, by the shared counter, comes before "
                + "the next leader's election").isLessThan(next.stamp());
        assertThat(next.term()).isGreaterThan(first.term());
        assertThat(writes(cutOff)[1]).as("writes of the cut-off leader refused by the fenced file").isZero();
    }
}
