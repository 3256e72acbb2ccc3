package io.github.lockmanager.store.cassandra;

import com.datastax.oss.driver.api.core.CqlSession;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Two data centres, one node each (dc1 on 127.0.0.1, dc2 on 127.0.0.2, named by the snitch), a keyspace with a replica
 * in each, and a lock manager in each whose farm is its data centre: DC-level locks are taken in both data centres at
 * once, each decided among its own replicas; an XDC-level lock is held by one of them only, and with the other data
 * centre down it cannot be taken at all (no quorum of every data centre's replicas), while DC-level locks go on.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@EnabledIfSystemProperty(named = "cassandra.full", matches = "true", disabledReason = "a slow Cassandra suite: run with -Dcassandra.full=true")
class CassandraTwoDataCentresTest {
    private static final String KEYSPACE = "lockmanager_two_dcs";
    private static CassandraNode dc1;
    private static CassandraNode dc2;
    private static CqlSession session1;
    private static CqlSession session2;
    private static final List<LockManager> managers = new ArrayList<>();
    private static final String client = "two-dcs-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void startTwoDataCentres() {
        int storagePort = CassandraNode.freePort("127.0.0.1");
        dc1 = new CassandraNode("dc1-node", "127.0.0.1", "dc1", "127.0.0.1", storagePort);
        dc2 = new CassandraNode("dc2-node", "127.0.0.2", "dc2", "127.0.0.1", storagePort);
        dc1.startFresh();
        dc2.startFresh();
        session1 = CassandraCluster.newSession(dc1);
        await().atMost(Duration.ofMinutes(2)).until(() -> session1.execute(
                "SELECT data_center FROM system.peers").all().stream().anyMatch(r -> "dc2".equals(r.getString(0))));
        session1.execute("CREATE KEYSPACE IF NOT EXISTS " + KEYSPACE
                + " WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 1, 'dc2': 1}");
        session2 = CassandraCluster.newSession(dc2);
    }

    @AfterAll
    static void stop() {
        managers.forEach(LockManager::close);
        session1.close();
        session2.close();
        dc1.kill();
        dc2.kill();
    }

    private static LockManager manager(CqlSession session, String dataCentre) throws LockManagerException {
        CassandraLockStore store = CassandraLockStore.builder(session).keyspace(KEYSPACE)
                .maxClockSkew(Duration.ofMillis(50)).operationTimeout(Duration.ofSeconds(3)).build();
        LockManager manager = LockManagerBuilder.newBuilder().store(store).clientId(client).farmId(dataCentre)
                .nodeId("node-" + dataCentre).lease(Duration.ofSeconds(10)).shutdownTimeout(Duration.ofSeconds(2))
                .build();
        managers.add(manager);
        return manager;
    }

    @Test
    @Order(1)
    void dcLevelLocksAreTakenInBothDataCentresAtOnceAndAnXdcLevelLockInOneOnly() throws Exception {
        LockManager east = manager(session1, "dc1");
        LockManager west = manager(session2, "dc2");
        try (LockResource a = east.lock("nightly-report", LockLevel.DC);
             LockResource b = west.lock("nightly-report", LockLevel.DC)) {
            assertThat(a.getLock().getOwnerNodeId()).isEqualTo("node-dc1");
            assertThat(b.getLock().getOwnerNodeId()).isEqualTo("node-dc2");
        }
        try (LockResource global = east.lock("migration", LockLevel.XDC)) {
            assertThatThrownBy(() -> west.lock("migration", LockLevel.XDC).close())
                    .isInstanceOf(AlreadyLockedException.class);
            assertThat(west.isLocked("migration", LockLevel.XDC)).isTrue();
            assertThat(global.isLost()).isFalse();
        }
        try (LockResource global = west.lock("migration", LockLevel.XDC)) {
            assertThat(east.isLocked("migration", LockLevel.XDC)).isTrue();
        }
    }

    @Test
    @Order(2)
    void aKeyspaceWithoutAReplicaInTheLocalDataCentreIsRefused() throws LockManagerException {
        session1.execute("CREATE KEYSPACE IF NOT EXISTS lockmanager_dc2_only"
                + " WITH replication = {'class': 'NetworkTopologyStrategy', 'dc2': 1}");
        CassandraLockStore store = CassandraLockStore.builder(session1).keyspace("lockmanager_dc2_only").build();
        assertThatThrownBy(store::initialize).isInstanceOf(LockManagerException.class)
                .hasMessageContaining("no replica in the local data centre 'dc1'");
        CassandraLockStore west = CassandraLockStore.builder(session2).keyspace("lockmanager_dc2_only").build();
        west.initialize();
    }

    /** Last: it stops the second data centre, and starts it again at the end. */
    @Test
    @Order(3)
    void withTheOtherDataCentreDownNoXdcLockIsTakenWhileDcLevelLocksGoOn() throws Exception {
        LockManager east = manager(session1, "dc1");
        dc2.kill();
        try {
            assertThatThrownBy(() -> east.lock("failover", LockLevel.XDC).close())
                    .isInstanceOf(LockManagerException.class).isNotInstanceOf(AlreadyLockedException.class);
            try (LockResource local = east.lock("local-job", LockLevel.DC)) {
                assertThat(local.isLost()).isFalse();
            }
        } finally {
            dc2.start();
        }
        await().atMost(Duration.ofMinutes(1)).ignoreExceptions().until(() -> {
            east.lock("failover", LockLevel.XDC).close();
            return true;
        });
    }
}
