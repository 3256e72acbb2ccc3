package io.github.lockmanager.it.cluster;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.jdbc.DatabaseAccess;
import io.github.lockmanager.store.jdbc.FencingTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.sql.DataSource;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Node processes that crash, pause, are aborted from elsewhere or shut down, on PostgreSQL; a subclass names another
 * store by {@link #target()}.
 */
class ProcessFaultTest {
    private static final long LEASE = 3_000;
    private static final long RENEWAL = 1_000;
    private static final long POLL = 500;
    private static final Duration REPORT = Duration.ofSeconds(60);

    @TempDir
    Path dir;
    private final Stores.Target target = target();
    private String client;
    private Children children;
    private LockStore store;
    private LockManager survivor;

    /** The store the nodes share. */
    Stores.Target target() {
        return Stores.postgres("lockmanager_faults");
    }

    @BeforeEach
    void start() throws Exception {
        client = "faults-" + UUID.randomUUID().toString().substring(0, 8);
        children = new Children(dir);
        store = target.store();
        survivor = LockManagerBuilder.newBuilder().store(store).clientId(client).nodeId("survivor")
                .waitPollInterval(Duration.ofMillis(20))
                .lease(Duration.ofMillis(LEASE)).renewalInterval(Duration.ofMillis(RENEWAL)).build();
    }

    @AfterEach
    void stop() {
        children.close();
        survivor.close();
    }

    private Children.Child holder(String nodeId, String keys, long renewal) throws Exception {
        Map<String, String> settings = target.settings(client, nodeId);
        settings.put("node.mode", "hold");
        settings.put("node.keys", keys);
        settings.put("node.lease", Long.toString(LEASE));
        settings.put("node.renewal", Long.toString(renewal));
        settings.put("node.poll", Long.toString(POLL));
        return children.start(settings);
    }

    private static long token(String heldLine) {
        return Long.parseLong(heldLine.split(" ")[2]);
    }

    private LockKey key(String name) {
        return LockKey.dc("default", client, name);
    }

    @Test
    void aKilledNodesLockIsTakenOverAfterItsLeaseAndNotBefore() throws Exception {
        Children.Child victim = holder("victim", "k", RENEWAL);
        victim.await("HELD k", REPORT);

        victim.process.destroyForcibly().waitFor();
        long killed = System.nanoTime();
        Instant leaseEnd = store.read(key("k")).orElseThrow().expirationTime();

        try (LockResource taken = survivor.waitForLock(LockSpec.of("k"), Duration.ofSeconds(30))) {
            long takeover = (System.nanoTime() - killed) / 1_000_000;
            Instant lockedAt = store.read(key("k")).orElseThrow().lockTime();
            long sinceLastRenewal = Duration.between(leaseEnd.minusMillis(LEASE), lockedAt).toMillis();
            System.out.printf("kill -9: lock taken over %d ms after the kill, %d ms after the victim's last renewal "
                    + "(lease %d ms, renewal every %d ms)%n", takeover, sinceLastRenewal, LEASE, RENEWAL);
            assertThat(lockedAt).as("not before the victim's lease ended (database clock)").isAfterOrEqualTo(leaseEnd);
            assertThat(sinceLastRenewal).isBetween(LEASE, LEASE + 1_500);
            assertThat(takeover).isLessThanOrEqualTo(LEASE + RENEWAL + 1_500);
        }
    }

    @Test
    void aNodePausedPastItsLeaseLearnsItsLockIsLostAndItsLateUnlockTouchesNothing() throws Exception {
        Children.Child paused = holder("paused", "k", RENEWAL);
        long pausedToken = token(paused.await("HELD k", REPORT));

        paused.signal("STOP");
        LockResource taken = survivor.waitForLock(LockSpec.of("k"), Duration.ofSeconds(30));
        paused.signal("CONT");

        String interrupted = paused.await("INTERRUPTED k", REPORT);
        paused.await("UNLOCKED k", REPORT);
        LockRecord now = store.read(key("k")).orElseThrow();
        System.out.printf("SIGSTOP past the lease: paused node's token %d, new holder's %d; after SIGCONT: %s%n",
                pausedToken, taken.getFencingToken(), interrupted);
        assertThat(interrupted).endsWith("lost=true");
        assertThat(now.nodeId()).as("the new holder's lock survives the late unlock").isEqualTo("survivor");
        assertThat(now.fencingToken()).isEqualTo(taken.getFencingToken());
        assertThat(pausedToken).isLessThan(taken.getFencingToken());
        taken.close();
    }

    /**
     * A holder paused past its lease, while another node took its key, learns it at its first question on waking,
     * not at its watchdog's next look (which the pause delays as much): {@code isLost()} is true and no work is
     * guarded; a second holder of the same process closes its hold at once on waking and is told too.
     */
    @Test
    void aHolderPausedPastItsLeaseIsToldAtItsFirstQuestionOrReleaseOnWaking() throws Exception {
        Children.Child paused = holder("paused", "k1,k2", RENEWAL);
        paused.await("HELD ", REPORT);
        paused.await("HELD ", REPORT);

        paused.signal("STOP");
        LockResource first = survivor.waitForLock(LockSpec.of("k1"), Duration.ofSeconds(30));
        LockResource second = survivor.waitForLock(LockSpec.of("k2"), Duration.ofSeconds(30));
        paused.signal("CONT");
        paused.send("check k1");
        paused.send("release k2");

        String check = paused.awaitAll(REPORT, "CHECK k1", "RELEASED k2", "TOLD k1", "TOLD k2").get("CHECK k1");
        System.out.printf("SIGSTOP past the lease, %s: on waking %s%n", target.name(), check);
        // the loss may also have reached the holder thread first, which then closed its hold
        assertThat(check).matches("CHECK k1 lost=true guard=(refused|closed)");
        assertThat(store.read(key("k2")).orElseThrow().nodeId()).as("the late release touched nothing")
                .isEqualTo("survivor");
        first.close();
        second.close();
    }

    /**
     * Kleppmann's case: a holder paused past its lease wakes up and writes with its old token. The lease alone cannot
     * stop that write; the resource's fencing table refuses it, while the new holder's write stands.
     */
    @Test
    void aHolderPausedPastItsLeaseHasItsLateWriteRefusedByTheFence() throws Exception {
        assumeTrue(target.name().equals("PostgreSQL"), "the fencing table of this test lives in PostgreSQL");
        String fenceTable = "lockmanager_it_fences";
        String dataTable = "lockmanager_it_fenced_data";
        DataSource source = DatabaseAccess.postgres();
        FencingTable fences = new FencingTable(source, fenceTable);
        fences.initialize();
        String doc = "doc-" + client;
        try (Connection c = source.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + dataTable + " (id VARCHAR(64) PRIMARY KEY, val VARCHAR(64))");
            s.execute("INSERT INTO " + dataTable + " (id, val) VALUES ('" + doc + "', 'nobody')");
        }
        Map<String, String> settings = target.settings(client, "paused");
        settings.put("node.mode", "hold");
        settings.put("node.keys", doc);
        settings.put("node.lease", Long.toString(LEASE));
        settings.put("node.renewal", Long.toString(RENEWAL));
        settings.put("node.poll", Long.toString(POLL));
        settings.put("node.fence.table", fenceTable);
        settings.put("node.fence.data", dataTable);
        Children.Child paused = children.start(settings);
        long pausedToken = token(paused.await("HELD " + doc, REPORT));

        paused.signal("STOP");
        try (LockResource taken = survivor.waitForLock(LockSpec.of(doc), Duration.ofSeconds(30));
             Connection c = source.getConnection()) {
            c.setAutoCommit(false);
            fences.admit(c, doc, taken.getFencingToken());
            try (Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE " + dataTable + " SET val = 'survivor' WHERE id = '" + doc + "'");
            }
            c.commit();
            paused.signal("CONT");
            paused.send("write " + doc + " paused");
            String refused = paused.await("REFUSED " + doc, REPORT);
            System.out.printf("fenced write after SIGSTOP past the lease: paused token %d, new holder's %d: %s%n",
                    pausedToken, taken.getFencingToken(), refused);
            assertThat(refused).endsWith(" " + taken.getFencingToken());
            assertThat(fences.highestAdmitted(doc)).hasValue(taken.getFencingToken());
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT val FROM " + dataTable
                    + " WHERE id = '" + doc + "'")) {
                rs.next();
                assertThat(rs.getString(1)).as("the new holder's write stands").isEqualTo("survivor");
            }
            c.rollback();
        } finally {
            try (Connection c = source.getConnection(); Statement s = c.createStatement()) {
                s.execute("DELETE FROM " + dataTable + " WHERE id = '" + doc + "'");
            }
        }
    }

    @Test
    void anAbortFromAnotherProcessInterruptsTheHolderWithinThePollInterval() throws Exception {
        Children.Child worker = holder("worker", "k", LEASE / 3);
        worker.await("HELD k", REPORT);

        long asked = System.currentTimeMillis();
        survivor.abort("k");
        String interrupted = worker.await("INTERRUPTED k", REPORT);
        long delay = Long.parseLong(interrupted.split(" ")[2]) - asked;
        worker.await("UNLOCKED k", REPORT);

        System.out.printf("abort across processes: holder interrupted %d ms after the request (abort poll %d ms)%n",
                delay, POLL);
        assertThat(delay).isLessThanOrEqualTo(POLL + 1_000);
        assertThat(interrupted).endsWith("lost=false");
        assertThat(survivor.lock("k").isNewLock()).isTrue();
    }

    @Test
    void aNodeShutDownBySigtermReleasesItsLocksAndLeavesNoThread() throws Exception {
        Children.Child leaving = holder("leaving", "a,b,c", RENEWAL);
        for (int held = 0; held < 3; held++) {
            leaving.await("HELD ", REPORT);
        }

        leaving.signal("TERM");

        String closed = leaving.await("CLOSED", REPORT);
        leaving.process.waitFor();
        System.out.printf("SIGTERM: %s; locks of the node left in the store: %d%n", closed,
                survivor.getLocks().size());
        assertThat(closed).isEqualTo("CLOSED threads=0");
        assertThat(survivor.getLocks()).isEmpty();
    }
}
