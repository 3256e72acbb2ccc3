package io.github.lockmanager.bench;

import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.TaskLock;
import io.github.lockmanager.TaskOptions;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.store.redis.RedisLockStore;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Figure 16 beside a peer: the heap a waiting asynchronous acquisition holds, ours ({@code lockForTaskAsync}) against
 * Redisson's ({@code RLock.lockAsync(threadId)}), each on the machine's Redis, for one key held by another owner. The
 * owners' names (ours) and ids (Redisson's) are the caller's and made before the first count; everything the call
 * creates and keeps while it waits is counted, the client's buffers and listeners included.
 */
final class WaiterHeapBench {
    /** How long the waiters are given to make their first try and settle before the count. */
    private static final Duration SETTLE = Duration.ofSeconds(3);

    private WaiterHeapBench() {
    }

    static void run(Settings settings, Report report, String run) throws Exception {
        int n = Math.max(1_000, settings.heapLocks() / 10);
        String key = "bench-waiters-" + run;
        Side ours = ours(n, key + "-ours");
        Side theirs = redisson(n, key + "-theirs");
        report.add("16. heap per task lock waiter, vs Redisson lockAsync", "Redis", HeapBench.bytes(ours.perWaiter),
                HeapBench.bytes(theirs.perWaiter), ours.perWaiter / theirs.perWaiter, String.format(Locale.ROOT,
                        "%,d waiters for one key another owner holds, live objects by the class histogram %d s after "
                                + "the calls; ours lockForTaskAsync (10-minute wait), %d threads added; theirs "
                                + "RLock.lockAsync(threadId) at Redisson's defaults, %,d still waiting at the count "
                                + "(bytes per waiting one), %d threads added", n, SETTLE.toSeconds(), ours.threads,
                        theirs.pending, theirs.threads));
    }

    private static int threads() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }

    /** One side's bytes per waiting acquisition, how many were waiting at the count, and the threads it added. */
    private record Side(double perWaiter, long pending, int threads) {
    }

    private static Side ours(int n, String key) throws Exception {
        String[] taskNames = new String[n];
        for (int i = 0; i < n; i++) {
            taskNames[i] = "w" + i;
        }
        try (RedisLockStore store = RedisLockStore.builder(Contenders.REDIS_URL).keyPrefix("bench-waiters:").build();
             LockManager manager = LockManagerBuilder.newBuilder().store(store).nodeId("waiters")
                     .waitPollInterval(Duration.ofMinutes(10)).build()) {
            store.endRestartQuarantine();
            LockSpec spec = LockSpec.of(key).at(LockLevel.DC);
            TaskLock holder = manager.lockForTask(spec, TaskOptions.named("holder"));
            int threadsBefore = threads();
            HeapBench.Footprint before = HeapBench.Footprint.now();
            List<CompletableFuture<TaskLock>> waiters = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                waiters.add(manager.lockForTaskAsync(spec, Duration.ofMinutes(10), TaskOptions.named(taskNames[i]))
                        .toCompletableFuture());
            }
            TimeUnit.MILLISECONDS.sleep(SETTLE.toMillis());
            double perWaiter = HeapBench.Footprint.now().growthPerItemSince(before, n).liveBytes();
            int added = threads() - threadsBefore;
            long done = waiters.stream().filter(CompletableFuture::isDone).count();
            if (done > 0) {
                throw new IllegalStateException(done + " of our waiters ended before the count");
            }
            waiters.forEach(w -> w.cancel(false));
            holder.close();
            return new Side(perWaiter, n, added);
        }
    }

    private static Side redisson(int n, String key) throws Exception {
        RedissonClient client = RedisContenders.redisson();
        try {
            RLock lock = client.getLock(key);
            lock.lockAsync(0L).toCompletableFuture().get(10, TimeUnit.SECONDS);
            int threadsBefore = threads();
            HeapBench.Footprint before = HeapBench.Footprint.now();
            List<CompletableFuture<Void>> waiters = new ArrayList<>(n);
            for (int i = 1; i <= n; i++) {
                waiters.add(lock.lockAsync(i).toCompletableFuture());
            }
            TimeUnit.MILLISECONDS.sleep(SETTLE.toMillis());
            HeapBench.Footprint after = HeapBench.Footprint.now();
            long pending = waiters.stream().filter(w -> !w.isDone()).count();
            int added = threads() - threadsBefore;
            if (pending == 0) {
                throw new IllegalStateException("none of Redisson's waiters was still waiting at the count");
            }
            double perWaiter = after.growthPerItemSince(before, (int) pending).liveBytes();
            waiters.forEach(w -> w.cancel(false));
            lock.forceUnlock();
            return new Side(perWaiter, pending, added);
        } finally {
            client.shutdown();
        }
    }
}
