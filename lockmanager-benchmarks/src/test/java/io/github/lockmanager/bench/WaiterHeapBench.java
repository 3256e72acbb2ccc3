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
    /** Redisson's count moves between rounds (its client's buffers), ours hardly: each side's median of these. */
    private static final int ROUNDS = 3;
    private static final String OUR_THREADS = "lockmanager-";
    private static final String THEIR_THREADS = "redisson-";

    private WaiterHeapBench() {
    }

    static void run(Settings settings, Report report, String run) throws Exception {
        int n = Math.max(1_000, settings.heapLocks() / 10);
        int rounds = settings.smoke() ? 1 : ROUNDS;
        String key = "bench-waiters-" + run;
        List<Side> ours = new ArrayList<>();
        List<Side> theirs = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            // alternated, each round in the other order than the last
            if (round % 2 == 0) {
                ours.add(ours(n, key + "-ours-" + round));
                theirs.add(redisson(n, key + "-theirs-" + round));
            } else {
                theirs.add(redisson(n, key + "-theirs-" + round));
                ours.add(ours(n, key + "-ours-" + round));
            }
        }
        double oursMedian = median(ours);
        double theirsMedian = median(theirs);
        report.add("16. heap per task lock waiter, vs Redisson lockAsync", "Redis", HeapBench.bytes(oursMedian),
                HeapBench.bytes(theirsMedian), oursMedian / theirsMedian, String.format(Locale.ROOT,
                        "%,d waiters for one key another owner holds, after one wait of each side ended with its key; "
                                + "live objects by the class histogram %d s after the calls, median of %d alternated "
                                + "rounds (ours %s, theirs %s); ours lockForTaskAsync (10-minute wait), threads "
                                + "added: %d; theirs RLock.lockAsync(threadId) at Redisson's defaults, %,d still "
                                + "waiting at the count (bytes per waiting one), threads added: %d", n,
                        SETTLE.toSeconds(), rounds, list(ours), list(theirs), ours.get(0).threads,
                        theirs.stream().mapToLong(Side::pending).min().orElseThrow(), theirs.get(0).threads));
    }

    private static double median(List<Side> sides) {
        double[] bytes = sides.stream().mapToDouble(Side::perWaiter).sorted().toArray();
        return bytes[bytes.length / 2];
    }

    private static String list(List<Side> sides) {
        return String.join(", ", sides.stream().map(s -> HeapBench.bytes(s.perWaiter)).toList());
    }

    /** Live threads whose name starts with {@code prefix}: what a side adds, whatever else the JVM is doing. */
    private static int threads(String prefix) {
        return (int) Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(prefix)).count();
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
            // one wait that ends with the key, first: the task threads and the store's subscription exist before the count
            LockSpec warmUp = LockSpec.of(key + "-warm-up").at(LockLevel.DC);
            TaskLock warmHolder = manager.lockForTask(warmUp, TaskOptions.named("warm-holder"));
            CompletableFuture<TaskLock> warmWaiter = manager.lockForTaskAsync(warmUp, Duration.ofMinutes(1),
                    TaskOptions.named("warm-waiter")).toCompletableFuture();
            warmHolder.close();
            warmWaiter.get(1, TimeUnit.MINUTES).close();
            int threadsBefore = threads(OUR_THREADS);
            HeapBench.Footprint before = HeapBench.Footprint.now();
            List<CompletableFuture<TaskLock>> waiters = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                waiters.add(manager.lockForTaskAsync(spec, Duration.ofMinutes(10), TaskOptions.named(taskNames[i]))
                        .toCompletableFuture());
            }
            TimeUnit.MILLISECONDS.sleep(SETTLE.toMillis());
            double perWaiter = HeapBench.Footprint.now().growthPerItemSince(before, n).liveBytes();
            int added = threads(OUR_THREADS) - threadsBefore;
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
            // one wait that ends with the key, first: the client's subscription exists before the count
            RLock warmUp = client.getLock(key + "-warm-up");
            warmUp.lockAsync(0L).toCompletableFuture().get(10, TimeUnit.SECONDS);
            CompletableFuture<Void> warmWaiter = warmUp.lockAsync(1L).toCompletableFuture();
            warmUp.unlockAsync(0L).toCompletableFuture().get(10, TimeUnit.SECONDS);
            warmWaiter.get(1, TimeUnit.MINUTES);
            warmUp.unlockAsync(1L).toCompletableFuture().get(10, TimeUnit.SECONDS);
            int threadsBefore = threads(THEIR_THREADS);
            HeapBench.Footprint before = HeapBench.Footprint.now();
            List<CompletableFuture<Void>> waiters = new ArrayList<>(n);
            for (int i = 1; i <= n; i++) {
                waiters.add(lock.lockAsync(i).toCompletableFuture());
            }
            TimeUnit.MILLISECONDS.sleep(SETTLE.toMillis());
            HeapBench.Footprint after = HeapBench.Footprint.now();
            long pending = waiters.stream().filter(w -> !w.isDone()).count();
            int added = threads(THEIR_THREADS) - threadsBefore;
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
