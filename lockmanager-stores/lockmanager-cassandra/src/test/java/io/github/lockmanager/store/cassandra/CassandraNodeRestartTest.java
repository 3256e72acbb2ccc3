package io.github.lockmanager.store.cassandra;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The shared node killed as a crash would (SIGKILL) and started again on its data while a lock is held: the grant
 * survives (it was in the node's commit log), nobody else gets the key, the holder is not told a loss it did not have,
 * its renewals go on once the node is back, and every manager recovers without being rebuilt.
 */
class CassandraNodeRestartTest {
    private static final Duration LEASE = Duration.ofSeconds(60);

    @Test
    void aLockHeldAcrossACrashAndRestartOfTheNodeStaysItsHoldersAndTheManagersGoOn() throws Exception {
        String client = "restart-" + UUID.randomUUID().toString().substring(0, 8);
        CassandraLockStore holderStore = CassandraCluster.store("lockmanager_restart");
        CassandraLockStore otherStore = CassandraLockStore.builder(CassandraCluster.session())
                .keyspace(CassandraCluster.KEYSPACE).table("lockmanager_restart").build();
        otherStore.initialize();
        LockKey key = LockKey.dc("default", client, "k");
        try (LockManager holder = LockManagerBuilder.newBuilder().store(holderStore).clientId(client)
                .nodeId("holder").lease(LEASE).renewalInterval(Duration.ofSeconds(1)).build();
             LockManager other = LockManagerBuilder.newBuilder().store(otherStore).clientId(client)
                     .nodeId("other").lease(LEASE).build()) {
            LockResource held = holder.lock("k");
            long token = held.getFencingToken();
            // the node syncs its commit log every 100 ms (CassandraNode): a grant older than that is on its disk
            Thread.sleep(300);

            CassandraNode node = CassandraCluster.node();
            node.kill();
            Instant restarted = Instant.now();
            node.start();

            await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
                try (LockResource fresh = other.lock("after-restart")) {
                    return fresh.isNewLock();
                }
            });
            assertThatThrownBy(() -> other.lock("k")).as("the grant survived the crash")
                    .isInstanceOf(AlreadyLockedException.class);
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> otherStore.read(key)
                    .map(LockRecord::expirationTime).orElseThrow().isAfter(restarted.plus(LEASE)));
            assertThat(held.isLost()).as("the holder was not told a loss it did not have").isFalse();
            assertThat(otherStore.read(key)).get().extracting(LockRecord::nodeId).isEqualTo("holder");

            held.close();
            assertThat(otherStore.read(key)).as("released after the restart").isEmpty();
            try (LockResource again = other.lock("k")) {
                assertThat(again.getFencingToken()).as("tokens grow across the restart").isGreaterThan(token);
            }
        } finally {
            otherStore.close();
            holderStore.close();
        }
    }
}
