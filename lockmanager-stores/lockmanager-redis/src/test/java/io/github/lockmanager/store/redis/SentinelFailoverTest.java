package io.github.lockmanager.store.redis;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.lettuce.core.RedisClient;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A master failed over by Sentinel, with and without replica confirmation, on real processes: a master, its replica and
 * a Sentinel this test starts. Node A holds five locks the replica has, then asks for five more while the replica's link
 * to the master passes nothing (so it receives and confirms nothing), the master is killed and the replica promoted. Node B then tries
 * all ten. Counted: grants A was given that the failover lost (B could take them while A's holder held), and those
 * A's holders were never told of. Without confirmation the five late grants are lost, and each holder is told at its
 * next renewal; with it they are refused while the replica cannot confirm, and nothing is lost. Either way every token
 * B is given for a key is above A's, by the epoch rule on the new master's clock.
 */
class SentinelFailoverTest {
    private static final Duration LEASE = Duration.ofSeconds(15);

    @ParameterizedTest(name = "confirming on {0} replica(s)")
    @ValueSource(ints = {0, 1})
    void aFailoverLosesOnlyUnconfirmedGrantsAndTellsTheirHolders(int confirm) throws Exception {
        try (RedisProcess master = RedisProcess.launch();
             TcpRelay link = new TcpRelay(master.port());
             RedisProcess replica = RedisProcess.launch("--replicaof", "127.0.0.1", Integer.toString(link.port()));
             CommandStats onReplica = new CommandStats(replica.uri())) {
            await().atMost(Duration.ofSeconds(20)).until(() ->
                    onReplica.commands().info("replication").contains("master_link_status:up"));
            try (RedisProcess sentinel = RedisProcess.sentinel("locks", master.port(), Duration.ofMillis(1000))) {
                RedisClient sentinelClient = RedisClient.create(sentinel.uri());
                try (StatefulRedisSentinelConnection<String, String> watch = sentinelClient.connectSentinel()) {
                    await().atMost(Duration.ofSeconds(30)).until(() -> !watch.sync().replicas("locks").isEmpty());
                    String uri = "redis-sentinel://127.0.0.1:" + sentinel.port() + "#locks";
                    Outcome outcome = run(uri, confirm, master, link, replica, watch);
                    System.out.println("Sentinel failover, confirming on " + confirm + " replica(s): " + outcome);
                    assertThat(outcome.untold).as("grants lost without their holder being told").isZero();
                    assertThat(outcome.inversions).as("tokens after the failover not above those before").isZero();
                    if (confirm == 0) {
                        assertThat(outcome.lost).as("grants the cut-off replica never received").isEqualTo(5);
                    } else {
                        assertThat(outcome.lost).isZero();
                        assertThat(outcome.refused).as("grants the cut-off replica could not confirm").isEqualTo(5);
                    }
                } finally {
                    sentinelClient.shutdown();
                }
            }
        }
    }

    record Outcome(int granted, int refused, int lost, int untold, int inversions) {
        @Override
        public String toString() {
            return granted + " of 10 grants to A, " + refused + " refused, " + lost + " lost by the failover, " + untold
                    + " of those untold, " + inversions + " of B's tokens not above A's";
        }
    }

    private Outcome run(String uri, int confirm, RedisProcess master, TcpRelay link, RedisProcess replica,
                        StatefulRedisSentinelConnection<String, String> watch) throws Exception {
        Set<String> toldLost = ConcurrentHashMap.newKeySet();
        CountDownLatch done = new CountDownLatch(1);
        List<String> heldByA = new ArrayList<>();
        Map<String, Long> tokensOfA = new HashMap<>();
        int refused = 0;
        RedisLockStore.Builder storeA = RedisLockStoreTest.fresh(RedisLockStore.builder(uri)).keyPrefix("failover:")
                .operationTimeout(Duration.ofSeconds(3));
        if (confirm > 0) {
            storeA.confirmReplicas(confirm, Duration.ofMillis(200));
        }
        try (LockManager a = LockManagerBuilder.newBuilder().store(storeA.build()).clientId("failover").nodeId("a")
                .lease(LEASE).renewalInterval(Duration.ofMillis(500))
                .lossListener((lock, holder, reason) -> toldLost.add(lock.getKey())).build()) {
            for (int i = 0; i < 10; i++) {
                if (i == 5) {
                    link.dropAnswers();
                }
                String key = (i < 5 ? "before-" : "during-") + i;
                long token = hold(a, key, done);
                if (token >= 0) {
                    heldByA.add(key);
                    tokensOfA.put(key, token);
                } else {
                    refused++;
                }
            }
            master.kill();
            link.close();
            await().atMost(Duration.ofSeconds(60)).until(() ->
                    ((InetSocketAddress) watch.sync().getMasterAddrByName("locks")).getPort() == replica.port());
            List<String> takenByB = new ArrayList<>();
            int[] inversions = {0};
            try (LockManager b = LockManagerBuilder.newBuilder()
                    .store(RedisLockStoreTest.fresh(RedisLockStore.builder(uri)).keyPrefix("failover:")
                            .operationTimeout(Duration.ofSeconds(3)).build())
                    .clientId("failover").nodeId("b").lease(LEASE).build()) {
                for (String key : heldByA) {
                    await().atMost(Duration.ofSeconds(30)).ignoreExceptionsInstanceOf(LockManagerException.class)
                            .until(() -> {
                                try (LockResource taken = b.waitForLock(LockSpec.of(key), Duration.ZERO)) {
                                    takenByB.add(key);
                                    if (taken.getFencingToken() <= tokensOfA.get(key)) {
                                        inversions[0]++;
                                    }
                                } catch (io.github.lockmanager.AlreadyLockedException held) {
                                    // A's grant survived the failover
                                }
                                return true;
                            });
                }
            }
            await().atMost(LEASE.multipliedBy(2)).until(() -> toldLost.containsAll(takenByB));
            done.countDown();
            int untold = (int) takenByB.stream().filter(key -> !toldLost.contains(key)).count();
            return new Outcome(heldByA.size(), refused, takenByB.size(), untold, inversions[0]);
        }
    }

    /** Takes {@code key} on a thread of its own, which holds it until {@code done}; its token, or -1 if refused. */
    private static long hold(LockManager manager, String key, CountDownLatch done) throws InterruptedException {
        CountDownLatch taken = new CountDownLatch(1);
        long[] granted = {-1};
        Thread holder = new Thread(() -> {
            try (LockResource held = manager.lock(key)) {
                granted[0] = held.getFencingToken();
                taken.countDown();
                done.await();
            } catch (InterruptedException lostOrDone) {
                Thread.currentThread().interrupt();
            } catch (Exception refused) {
                taken.countDown();
            }
        }, "holder-" + key);
        holder.setDaemon(true);
        holder.start();
        assertThat(taken.await(30, TimeUnit.SECONDS)).isTrue();
        return granted[0];
    }
}
