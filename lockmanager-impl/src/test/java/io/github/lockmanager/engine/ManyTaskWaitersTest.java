package io.github.lockmanager.engine;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.TaskLock;
import io.github.lockmanager.TaskOptions;
import io.github.lockmanager.store.memory.InMemoryLockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Ten thousand waiters for one key held by a task: what they cost in threads and heap, and that each gets it. */
class ManyTaskWaitersTest {
    private static final Logger log = LoggerFactory.getLogger(ManyTaskWaitersTest.class);
    private static final int WAITERS = 10_000;

    private LockManager manager;

    @AfterEach
    void close() {
        if (manager != null) {
            manager.close();
        }
    }

    @Test
    void tenThousandWaitersHoldNoThreadEachAndAllGetTheKeyInTurn() throws Exception {
        manager = LockManagerBuilder.newBuilder().store(new InMemoryLockStore()).nodeId("many")
                .waitPollInterval(Duration.ofMinutes(10)).build();
        TaskLock holder = manager.lockForTask(LockSpec.of("hot").at(LockLevel.DC), TaskOptions.named("holder"));
        // the task threads exist before the count, so that it shows only what the waiters add
        manager.lockForTaskAsync(LockSpec.of("warm-up").at(LockLevel.DC), Duration.ZERO, TaskOptions.named("warm-up"))
                .toCompletableFuture().get(30, TimeUnit.SECONDS).close();
        String[] names = new String[WAITERS];
        for (int i = 0; i < WAITERS; i++) {
            names[i] = "w" + i;
        }
        LockSpec hot = LockSpec.of("hot").at(LockLevel.DC);
        List<CompletableFuture<TaskLock>> waiters = new ArrayList<>(WAITERS);
        int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        Map<String, long[]> before = liveObjects();

        AtomicInteger took = new AtomicInteger();
        for (int i = 0; i < WAITERS; i++) {
            waiters.add(manager.lockForTaskAsync(hot, Duration.ofMinutes(5), TaskOptions.named(names[i]))
                    .toCompletableFuture());
        }
        LockEngine engine = (LockEngine) manager;
        // each has had its first try and is parked in the key's queue, no try of it left on the task threads
        await().atMost(Duration.ofSeconds(60)).until(() -> engine.taskWaits() == WAITERS
                && engine.waitQueue().size() == WAITERS && waiters.stream().noneMatch(CompletableFuture::isDone));
        Map<String, long[]> after = liveObjects();
        int threadsAdded = ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore;
        long bytesPerWaiter = (after.get(TOTAL)[1] - before.get(TOTAL)[1]) / WAITERS;
        log.info("{} task waiters for one key: {} threads added, {} bytes of live objects each (with its future and "
                + "options)", WAITERS, threadsAdded, bytesPerWaiter);
        assertThat(threadsAdded).as("threads added for %d waiters", WAITERS).isLessThanOrEqualTo(1);
        // a waiter, its future, its options and its key in the store, and nothing per waiter beside them: no timer
        // task, no set entry, no atomic, no completion stage (about 200 bytes; a timer task alone was 130)
        assertThat(bytesPerWaiter).as("live bytes per waiter").isLessThan(260);
        for (String perWaiterBefore : List.of("java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask",
                "java.util.concurrent.ConcurrentHashMap$Node", "java.util.concurrent.atomic.AtomicInteger",
                "java.util.concurrent.CompletableFuture", "java.util.concurrent.CompletableFuture$UniWhenComplete")) {
            assertThat(grown(before, after, perWaiterBefore)).as("live %s added for %d waiters", perWaiterBefore,
                    WAITERS).isLessThan(WAITERS / 10);
        }
        assertThat(grown(before, after, Waits.class.getName() + "$TaskWaiter$WaitFuture")).isEqualTo(WAITERS);

        for (CompletableFuture<TaskLock> waiter : waiters) {
            waiter.thenAccept(lock -> {
                took.incrementAndGet();
                lock.close();
            });
        }
        holder.close();
        await().atMost(Duration.ofSeconds(120)).untilAsserted(() -> assertThat(took).hasValue(WAITERS));
        assertThat(engine.taskWaits()).isZero();
    }

    private static final String TOTAL = "Total";

    /** Live instances and bytes per class, from the JVM's class histogram (which collects first); "Total" for all. */
    private static Map<String, long[]> liveObjects() throws Exception {
        String histogram = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
        Map<String, long[]> byClass = new HashMap<>();
        for (String line : histogram.split("\n")) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length >= 4 && fields[0].endsWith(":")) {
                byClass.put(fields[3], new long[] {Long.parseLong(fields[1]), Long.parseLong(fields[2])});
            } else if (fields.length >= 3 && fields[0].equals(TOTAL)) {
                byClass.put(TOTAL, new long[] {Long.parseLong(fields[1]), Long.parseLong(fields[2])});
            }
        }
        return byClass;
    }

    private static long grown(Map<String, long[]> before, Map<String, long[]> after, String className) {
        return after.getOrDefault(className, new long[2])[0] - before.getOrDefault(className, new long[2])[0];
    }
}
