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
 * the processes share. Prints each failover time.
 */
class LeaderProcessesTest {
    private static final long LEASE = 3_000;
    private static final Duration REPORT = Duration.ofSeconds(60);
    /** How often a waiter on a store that announces releases tries anyway: 50 of the default 100 ms poll intervals. */
    private static final long SAFETY_TRY = 5_000;

    @TempDir
    Path dir;
    private final Stores.Target target = target();
    private Children children;
    private String client;
    private TcpProxy proxy;
    private final List<Children.Child> members = new ArrayList<>();

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
        Map<String, String> settings = target.settings(client, node);
        if (through != null) {
            settings = throughProxy(settings, through.port());
        }
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

    /** The store's port on the loopback address, which a proxy forwards to. */
    int storePort() {
        return Stores.POSTGRES_PORT;
    }

    /** The member among {@code among} that reports being elected next, and its term. */
    private static Elected nextElected(List<Children.Child> among) throws InterruptedException {
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
    private record Elected(Children.Child member, long term, long stamp) {
    }

    private static int[] writes(Children.Child member) throws InterruptedException {
        member.send("report");
        String[] parts = member.await("WRITES", REPORT).split(" ");
        return new int[] {Integer.parseInt(parts[1]), Integer.parseInt(parts[2])};
    }

    /** Waits until {@code leader} has had a write admitted. */
    private static void awaitWrites(Children.Child leader) throws InterruptedException {
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
        // the lease ends without a release to announce: a waiter finds it at its next safety try, 50 wait poll
        // intervals (5 s at the default) on stores that announce releases
        assertThat(failover).as("within the lease and a waiter's safety interval").isLessThan(
                Duration.ofMillis(LEASE + SAFETY_TRY + 3_000));
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
