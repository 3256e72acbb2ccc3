package io.github.lockmanager.store.aerospike;

import com.aerospike.client.AerospikeClient;
import com.aerospike.client.policy.ClientPolicy;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The server killed and started again in well under one lease while two managers contend for hot keys and one holds
 * a key throughout (issue 68's finding: a restart of an in-memory namespace gave a key to another process 36 ms after
 * the server came back, 3.7 s before its holder was told). On the persisted namespace the store requires, the restart
 * loses no lock: no two writers inside a key at any instant, the long holder keeps its lock (or, were its record lost,
 * is told before anyone else takes the key), and tokens only rise. Runs only where the test may restart the server:
 * {@code -Daerospike.stop} and {@code -Daerospike.start} name the commands that do. A namespace kept in memory only
 * ({@code -Daerospike.volatileNamespace}) is refused by {@code initialize()}.
 */
@ExtendWith(AerospikeServer.class)
class AerospikeServerRestartTest {
    private static final String[] KEYS = {"hot-a", "hot-b", "hot-c"};
    /** Well over the time the server takes to stop and start again (a few seconds), as a restart must be survived. */
    private static final Duration LEASE = Duration.ofSeconds(20);

    @Test
    void contendersNeverOverlapTheHolderIsToldAndTokensRiseAcrossTheRestart() throws Exception {
        String stop = System.getProperty("aerospike.stop", "");
        String start = System.getProperty("aerospike.start", "");
        assumeTrue(!stop.isBlank() && !start.isBlank(), "name the commands that stop and start the server: "
                + "-Daerospike.stop=<command> -Daerospike.start=<command>");
        String clientId = "restart" + UUID.randomUUID().toString().substring(0, 6);
        Map<String, AtomicInteger> writers = new ConcurrentHashMap<>();
        Map<String, AtomicLong> highest = new ConcurrentHashMap<>();
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        AtomicBoolean restarted = new AtomicBoolean();
        AtomicLong highestBefore = new AtomicLong();
        AtomicLong lowestAfter = new AtomicLong(Long.MAX_VALUE);
        AtomicBoolean running = new AtomicBoolean(true);
        List<AerospikeClient> clients = new ArrayList<>();
        List<LockManager> managers = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        AtomicBoolean longTold = new AtomicBoolean();
        try {
            for (String node : new String[]{"n1", "n2"}) {
                ClientPolicy policy = new ClientPolicy();
                policy.failIfNotConnected = false;
                AerospikeClient client = new AerospikeClient(policy, AerospikeServer.client().getNodes()[0].getHost());
                clients.add(client);
                AerospikeLockStore store = AerospikeLockStore.builder(client).namespace(AerospikeServer.namespace())
                        .setSuffix("restart").operationTimeout(Duration.ofMillis(500)).build();
                LockManager manager = LockManagerBuilder.newBuilder().store(store).clientId(clientId).nodeId(node)
                        .lease(LEASE).renewalInterval(Duration.ofMillis(400)).abortPollInterval(Duration.ofMillis(200))
                        .shutdownTimeout(Duration.ofSeconds(2)).lossListener((lock, holder, reason) -> {
                            if (lock.getKey().equals("long")) {
                                longTold.set(true);
                            }
                        }).build();
                managers.add(manager);
                for (int t = 0; t < 4; t++) {
                    Thread thread = new Thread(() -> {
                        while (running.get()) {
                            String key = KEYS[ThreadLocalRandom.current().nextInt(KEYS.length)];
                            try (LockResource held = manager.lock(key)) {
                                long token = held.getFencingToken();
                                if (writers.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet() > 1) {
                                    violations.add("two writers inside " + key + ", one with token " + token);
                                }
                                long before = highest.computeIfAbsent(key, k -> new AtomicLong()).getAndAccumulate(token, Math::max);
                                if (token <= before) {
                                    violations.add("token " + token + " of " + key + " not above " + before);
                                }
                                (restarted.get() ? lowestAfter : highestBefore).accumulateAndGet(token,
                                        restarted.get() ? Math::min : Math::max);
                                Thread.sleep(ThreadLocalRandom.current().nextInt(3));
                                writers.get(key).decrementAndGet();
                            } catch (AlreadyLockedException busy) {
                                Thread.onSpinWait();
                            } catch (LockException | InterruptedException e) {
                                // the server is down, or the hold was lost with it: try again
                            }
                        }
                    }, "restart-" + node + "-" + t);
                    threads.add(thread);
                    thread.start();
                }
            }
            AtomicReference<LockResource> longHold = new AtomicReference<>();
            AtomicBoolean longReleased = new AtomicBoolean();
            CountDownLatch taken = new CountDownLatch(1);
            CountDownLatch letGo = new CountDownLatch(1);
            Thread holder = new Thread(() -> {
                try (LockResource held = managers.get(0).lock("long")) {
                    longHold.set(held);
                    taken.countDown();
                    letGo.await();
                } catch (InterruptedException e) {
                    // told its lock was lost
                } catch (LockException e) {
                    violations.add("long holder: " + e);
                    taken.countDown();
                } finally {
                    longReleased.set(true);
                }
            }, "restart-long-holder");
            holder.start();
            assertThat(taken.await(10, TimeUnit.SECONDS)).isTrue();
            AtomicInteger takenWhileHeld = new AtomicInteger();
            Thread other = new Thread(() -> {
                // node n2 asks for the long holder's key every few milliseconds, across the restart
                while (!longReleased.get()) {
                    try (LockResource again = managers.get(1).waitForLock(LockSpec.of("long"), Duration.ZERO)) {
                        if (letGo.getCount() > 0 && !longTold.get()) {
                            takenWhileHeld.incrementAndGet();
                            violations.add("'long' granted to n2 while n1 held it untold, token " + again.getFencingToken());
                        }
                        return;
                    } catch (LockException | InterruptedException refusedOrDown) {
                        Thread.onSpinWait();
                    }
                }
            }, "restart-long-asker");
            other.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> highest.size() == KEYS.length);
            // a Community Edition namespace acknowledges a write before it reaches the device (commit-to-device is
            // Enterprise-only): a crash loses the last flush-max-ms of writes, which may hold a grant (docs/aerospike.md).
            // The kill comes after the long holder's grant is on the device; its renewals may still be lost with it.
            long flushMillis = Long.parseLong(new AerospikeNamespace(AerospikeServer.namespace(), com.aerospike.client.Info
                    .request(AerospikeServer.client().getNodes()[0], "namespace/" + AerospikeServer.namespace()), "")
                    .flushMillis());
            long grantedAt = System.nanoTime();
            await().atMost(Duration.ofMillis(flushMillis * 3 + 5_000)).pollDelay(Duration.ofMillis(flushMillis * 2))
                    .until(() -> System.nanoTime() - grantedAt >= TimeUnit.MILLISECONDS.toNanos(flushMillis * 2));

            long stopped = System.nanoTime();
            run(stop);
            restarted.set(true);
            run(start);
            Duration down = Duration.ofNanos(System.nanoTime() - stopped);
            assertThat(down).as("the restart is well under one lease").isLessThan(LEASE.dividedBy(2));
            await().atMost(Duration.ofSeconds(60)).until(() -> lowestAfter.get() < Long.MAX_VALUE);
            // the long holder kept its lock across the restart, or was told before n2 took it
            assertThat(longHold.get().isLost() ? longTold.get() : !longReleased.get()).isTrue();
            letGo.countDown();
            holder.join(10_000);
            other.join(30_000);
            System.out.printf("Aerospike restart in %d ms: long holder %s%n", down.toMillis(),
                    longTold.get() ? "told its lock was lost" : "kept its lock");
            assertThat(takenWhileHeld.get()).isZero();
        } finally {
            running.set(false);
            for (Thread thread : threads) {
                thread.join(10_000);
            }
            managers.forEach(LockManager::close);
            clients.forEach(AerospikeClient::close);
        }
        System.out.printf("Aerospike restart under contention: highest token before %d, lowest after %d, %d violations%n",
                highestBefore.get(), lowestAfter.get(), violations.size());
        assertThat(violations).isEmpty();
        assertThat(longTold.get()).as("the persisted namespace kept the long holder's lock").isFalse();
        assertThat(lowestAfter.get()).as("grants after the restart").isLessThan(Long.MAX_VALUE)
                .isGreaterThan(highestBefore.get());
    }

    @Test
    void aNamespaceKeptInMemoryOnlyIsRefusedUnlessTheRiskIsAccepted() throws Exception {
        String volatileNamespace = System.getProperty("aerospike.volatileNamespace", "");
        assumeTrue(!volatileNamespace.isBlank(), "name a namespace kept in memory only: -Daerospike.volatileNamespace");
        assertThatThrownBy(() -> AerospikeLockStore.builder(AerospikeServer.client()).namespace(volatileNamespace)
                .build().initialize()).isInstanceOf(LockManagerException.class)
                .hasMessageContaining("keeps its records in memory only");
        AerospikeLockStore.builder(AerospikeServer.client()).namespace(volatileNamespace)
                .acceptTwoHoldersAfterRestart(true).build().initialize();
    }

    private static void run(String command) throws Exception {
        Process process = new ProcessBuilder("sh", "-c", command).inheritIO().start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as(command).isTrue();
        assertThat(process.exitValue()).as(command).isZero();
    }
}
