package io.github.lockmanager.spring.integration;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.store.jdbc.DatabaseAccess;
import io.github.lockmanager.store.jdbc.JdbcLockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.integration.leader.AbstractCandidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.LeaderEventPublisher;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Spring Integration candidates elected through lockmanager's leader election, on PostgreSQL. */
class LockManagerLeaderInitiatorTest {
    private static JdbcLockStore store;

    private final String client = "leaders-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<LockManager> managers = new ArrayList<>();
    private final List<LockManagerLeaderInitiator> initiators = new ArrayList<>();
    /** What candidates and the event publisher saw, in order: "granted a 17", "event granted a", ... */
    private final List<String> seen = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void database() throws Exception {
        store = JdbcLockStore.builder(DatabaseAccess.postgres()).tableName("lockmanager_registry").build();
        store.initialize();
    }

    @AfterEach
    void close() {
        initiators.forEach(LockManagerLeaderInitiator::stop);
        managers.forEach(LockManager::close);
    }

    private LockManagerLeaderInitiator initiator(String node) throws Exception {
        LockManager manager = LockManagerBuilder.newBuilder().store(store).clientId(client).nodeId(node)
                .shutdownTimeout(Duration.ofSeconds(1)).build();
        managers.add(manager);
        LockManagerLeaderInitiator[] self = new LockManagerLeaderInitiator[1];
        AbstractCandidate candidate = new AbstractCandidate(node, "nightly") {
            @Override
            public void onGranted(Context ctx) {
                seen.add("granted " + node + " " + self[0].getContext().term().orElseThrow().number());
            }

            @Override
            public void onRevoked(Context ctx) {
                seen.add("revoked " + node);
            }
        };
        LockManagerLeaderInitiator initiator = new LockManagerLeaderInitiator(manager, candidate);
        self[0] = initiator;
        initiator.setRejoinDelay(Duration.ofMillis(300));
        initiator.setLeaderEventPublisher(new LeaderEventPublisher() {
            @Override
            public void publishOnGranted(Object source, Context context, String role) {
                seen.add("event granted " + node + " " + role);
            }

            @Override
            public void publishOnRevoked(Object source, Context context, String role) {
                seen.add("event revoked " + node + " " + role);
            }

            @Override
            public void publishOnFailedToAcquire(Object source, Context context, String role) {
                seen.add("event failed " + node);
            }
        });
        initiators.add(initiator);
        initiator.start();
        return initiator;
    }

    @Test
    void oneCandidateIsGrantedAndItsRevocationComesBeforeTheNextGrantWhenItYieldsOrStops() throws Exception {
        LockManagerLeaderInitiator a = initiator("a");
        LockManagerLeaderInitiator b = initiator("b");
        await().atMost(Duration.ofSeconds(30)).until(() -> a.getContext().isLeader() != b.getContext().isLeader());
        LockManagerLeaderInitiator leader = a.getContext().isLeader() ? a : b;
        LockManagerLeaderInitiator other = leader == a ? b : a;
        String leaderId = leader.getCandidate().getId();
        long firstTerm = leader.getContext().term().orElseThrow().number();

        leader.getContext().yield();

        await().atMost(Duration.ofSeconds(30)).until(() -> other.getContext().isLeader());
        assertThat(other.getContext().term().orElseThrow().number()).isGreaterThan(firstTerm);

        other.stop();

        await().atMost(Duration.ofSeconds(30)).until(() -> leader.getContext().isLeader());
        String otherId = other.getCandidate().getId();
        assertThat(seen).containsSubsequence("granted " + leaderId + " " + firstTerm,
                "event granted " + leaderId + " nightly", "revoked " + leaderId, "event revoked " + leaderId
                        + " nightly", "event granted " + otherId + " nightly", "revoked " + otherId,
                "event revoked " + otherId + " nightly", "event granted " + leaderId + " nightly");
        assertThat(seen).noneMatch(s -> s.startsWith("event failed"));
        assertThat(other.isRunning()).isFalse();
    }
}
