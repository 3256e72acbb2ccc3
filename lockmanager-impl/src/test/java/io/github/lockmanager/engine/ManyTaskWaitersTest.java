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

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        long heapBefore = usedHeapAfterGc(memory);

        List<CompletableFuture<TaskLock>> waiters = new ArrayList<>(WAITERS);
        AtomicInteger took = new AtomicInteger();
        for (int i = 0; i < WAITERS; i++) {
            CompletableFuture<TaskLock> waiter = manager.lockForTaskAsync(LockSpec.of("hot").at(LockLevel.DC), Duration.ofMinutes(5),
                    TaskOptions.named("w" + i)).toCompletableFuture();
            waiters.add(waiter);
        }
        LockEngine engine = (LockEngine) manager;
        await().atMost(Duration.ofSeconds(60)).until(() -> engine.taskWaits() == WAITERS
                && waiters.stream().noneMatch(CompletableFuture::isDone));
        long heapPerWaiter = (usedHeapAfterGc(memory) - heapBefore) / WAITERS;
        int threadsAdded = ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore;
        log.info("{} task waiters for one key: {} threads added, about {} bytes of heap each (with its future and "
                + "options)", WAITERS, threadsAdded, heapPerWaiter);
        assertThat(threadsAdded).as("threads added for %d waiters", WAITERS).isLessThanOrEqualTo(1);
        assertThat(heapPerWaiter).as("heap per waiter, bytes").isLessThan(2_000);

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

    private static long usedHeapAfterGc(MemoryMXBean memory) throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
