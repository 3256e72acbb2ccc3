package io.github.lockmanager.store.aerospike;

import com.aerospike.client.AerospikeClient;
import com.aerospike.client.policy.ClientPolicy;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockManager;
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
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The server stopped and started again while two managers contend for hot keys and one holds a key throughout:
 * no two writers inside a key at any instant, the long holder is told its lock is lost, and every token granted after
 * the restart is above every token granted before it (the test namespace keeps records in memory, so the restart
 * forgets every record). Runs only where the test may restart the server: {@code -Daerospike.stop} and
 * {@code -Daerospike.start} name the commands that do.
 */
@ExtendWith(AerospikeServer.class)
class AerospikeServerRestartTest {
    private static final String[] KEYS = {"hot-a", "hot-b", "hot-c"};
    private static final Duration LEASE = Duration.ofSeconds(2);

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
                        .shutdownTimeout(Duration.ofSeconds(2)).build();
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
            CountDownLatch told = new CountDownLatch(1);
            CountDownLatch taken = new CountDownLatch(1);
            Thread holder = new Thread(() -> {
                try (LockResource held = managers.get(0).lock("long")) {
                    longHold.set(held);
                    taken.countDown();
                    new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                    told.countDown();
                } catch (LockException e) {
                    violations.add("long holder: " + e);
                    taken.countDown();
                }
            }, "restart-long-holder");
            holder.start();
            assertThat(taken.await(10, TimeUnit.SECONDS)).isTrue();
            TimeUnit.SECONDS.sleep(2); // contention before the restart: what is asserted is what follows

            run(stop);
            assertThat(told.await(LEASE.toMillis() + 3_000, TimeUnit.MILLISECONDS)).as("the long holder is told")
                    .isTrue();
            assertThat(longHold.get().isLost()).isTrue();
            restarted.set(true);
            run(start);
            await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
                try (LockResource again = managers.get(1).lock("long")) {
                    return again.getFencingToken() > longHold.get().getFencingToken();
                }
            });
            TimeUnit.SECONDS.sleep(3); // contention after the restart
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
        assertThat(lowestAfter.get()).as("grants after the restart").isLessThan(Long.MAX_VALUE)
                .isGreaterThan(highestBefore.get());
    }

    private static void run(String command) throws Exception {
        Process process = new ProcessBuilder("sh", "-c", command).inheritIO().start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as(command).isTrue();
        assertThat(process.exitValue()).as(command).isZero();
    }
}
