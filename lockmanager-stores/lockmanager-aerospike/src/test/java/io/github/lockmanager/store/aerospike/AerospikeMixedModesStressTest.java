package io.github.lockmanager.store.aerospike;

import com.aerospike.client.AerospikeClient;
import com.aerospike.client.policy.ClientPolicy;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two managers, each on its own client and store, and eight threads each, taking three hot keys shared or exclusive
 * on the real server: at no instant does a writer hold a key beside anyone else, every holder's token is above the
 * tokens of the conflicting holders that left before it asked, and no holder loses its lock. It runs 15 s in the
 * build; {@code -Daerospike.stress.seconds=300} runs it for minutes.
 */
@ExtendWith(AerospikeServer.class)
class AerospikeMixedModesStressTest {
    private static final String[] KEYS = {"hot-a", "hot-b", "hot-c"};

    /** Who is inside one key now, and the highest tokens of holders that left it. */
    private static final class Occupancy {
        final AtomicInteger writers = new AtomicInteger();
        final AtomicInteger readers = new AtomicInteger();
        final AtomicLong lastTokenOut = new AtomicLong();
        final AtomicLong lastWriterTokenOut = new AtomicLong();
    }

    @Test
    void sharedAndExclusiveHoldersNeverOverlapAndTokensFollowGrantOrder() throws Exception {
        long seconds = Long.getLong("aerospike.stress.seconds", 15);
        String clientId = "stress" + UUID.randomUUID().toString().substring(0, 6);
        Occupancy[] keys = {new Occupancy(), new Occupancy(), new Occupancy()};
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        LongAdder grants = new LongAdder();
        LongAdder sharedGrants = new LongAdder();
        List<AerospikeClient> clients = new ArrayList<>();
        List<LockManager> managers = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        try {
            for (String node : new String[]{"n1", "n2"}) {
                AerospikeClient client = new AerospikeClient(new ClientPolicy(),
                        AerospikeServer.client().getNodes()[0].getHost());
                clients.add(client);
                AerospikeLockStore store = AerospikeLockStore.builder(client).namespace(AerospikeServer.namespace())
                        .setSuffix("stress").operationTimeout(Duration.ofSeconds(2)).build();
                LockManager manager = LockManagerBuilder.newBuilder().store(store).clientId(clientId).farmId("farm1")
                        .nodeId(node).lease(Duration.ofSeconds(2)).build();
                managers.add(manager);
                for (int t = 0; t < 8; t++) {
                    Thread thread = new Thread(() -> {
                        while (System.nanoTime() < until && violations.isEmpty()) {
                            int k = ThreadLocalRandom.current().nextInt(KEYS.length);
                            boolean shared = ThreadLocalRandom.current().nextInt(100) < 60;
                            try {
                                hold(manager, KEYS[k], shared, keys[k], violations);
                                grants.increment();
                                if (shared) {
                                    sharedGrants.increment();
                                }
                            } catch (AlreadyLockedException busy) {
                                Thread.onSpinWait();
                            } catch (Exception e) {
                                violations.add(Thread.currentThread().getName() + ": " + e);
                            }
                        }
                    }, "stress-" + node + "-" + t);
                    threads.add(thread);
                    thread.start();
                }
            }
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(seconds + 60));
            }
        } finally {
            threads.forEach(Thread::interrupt);
            managers.forEach(LockManager::close);
            clients.forEach(AerospikeClient::close);
        }
        System.out.printf("Aerospike mixed modes, %d s: %d grants (%d shared), %d violations%n", seconds, grants.sum(),
                sharedGrants.sum(), violations.size());
        assertThat(violations).isEmpty();
        assertThat(sharedGrants.sum()).as("shared grants").isPositive();
        assertThat(grants.sum() - sharedGrants.sum()).as("exclusive grants").isPositive();
    }

    private static void hold(LockManager manager, String key, boolean shared, Occupancy inside,
                             ConcurrentLinkedQueue<String> violations) throws Exception {
        long lastOut = inside.lastTokenOut.get();
        long lastWriterOut = inside.lastWriterTokenOut.get();
        try (LockResource held = shared ? manager.lock(LockSpec.shared(key)) : manager.lock(key)) {
            long token = held.getFencingToken();
            String who = (shared ? "reader " : "writer ") + Thread.currentThread().getName() + " of " + key
                    + " with token " + token;
            if (token <= (shared ? lastWriterOut : lastOut)) {
                violations.add(who + " is not above " + (shared ? lastWriterOut : lastOut)
                        + ", the token of a conflicting holder that had left before it asked");
            }
            int writers = shared ? inside.writers.get() : inside.writers.incrementAndGet();
            int readers = shared ? inside.readers.incrementAndGet() : inside.readers.get();
            if (shared ? writers > 0 : writers > 1 || readers > 0) {
                violations.add(who + " inside beside " + writers + " writers and " + readers + " readers");
            }
            Thread.sleep(ThreadLocalRandom.current().nextInt(3));
            (shared ? inside.readers : inside.writers).decrementAndGet();
            inside.lastTokenOut.accumulateAndGet(token, Math::max);
            if (!shared) {
                inside.lastWriterTokenOut.accumulateAndGet(token, Math::max);
            }
            if (held.isLost()) {
                violations.add(who + " lost its lock while holding it");
            }
        }
    }
}
