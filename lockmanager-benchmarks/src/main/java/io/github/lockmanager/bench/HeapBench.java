package io.github.lockmanager.bench;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.TaskLock;
import io.github.lockmanager.TaskOptions;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.store.memory.InMemoryLockStore;

import javax.management.JMException;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Figure 6: heap bytes per held lock (engine table and in-memory store), against a map entry per key; figure 16:
 * heap bytes per waiter of a task lock, against a bare future with a timer.
 *
 * <p>Counted twice. The figure is the bytes of the objects the locks keep reachable, from the JVM's class histogram
 * of live objects (each object at its own size). Beside it, the heap in use after full GCs: under G1 an array of
 * half a region or more takes whole regions of its own, so a map's table that has just grown past that (1 MiB at
 * 100,000 keys, with the 1 MiB regions of this heap) occupies two regions; that rounding is a fixed cost per table
 * that shrinks per lock as the table grows, and it shows in both the figure's locks and its baseline's map.
 */
final class HeapBench {
    private HeapBench() {
    }

    static void run(Settings settings, Report report) throws Exception {
        // the first manager of a JVM also makes what every later one shares (what its classes set up once): a
        // smaller round first, dropped, so that the figure is what each held lock adds
        perLockAndEntry(settings.heapLocks() / 10);
        int n = settings.heapLocks();
        Growth measured = perLockAndEntry(n);
        Footprint perLock = measured.perLock();
        Footprint perEntry = measured.perEntry();
        report.add("6. heap per held lock", "in-memory", bytes(perLock.liveBytes), bytes(perEntry.liveBytes),
                perLock.liveBytes / perEntry.liveBytes, String.format(Locale.ROOT, "%,d held locks (engine table + "
                        + "store record) vs a ConcurrentHashMap entry per key, live objects by the class histogram; "
                        + "key strings excluded from both. Heap in use after full GCs: %s against %s (G1 gives a "
                        + "1 MiB map table two regions)", n, bytes(perLock.usedBytes), bytes(perEntry.usedBytes)));
    }

    /**
     * Figure 16: heap per waiter of {@code lockForTaskAsync} for one key held by a task, against the least an
     * asynchronous wait with a deadline needs: a {@code CompletableFuture} and a timer of a scheduled executor.
     */
    static void runTaskWaiters(Settings settings, Report report) throws Exception {
        int n = Math.max(1_000, settings.heapLocks() / 10);
        Footprint before = Footprint.now();
        ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1);
        timers.setRemoveOnCancelPolicy(true);
        List<CompletableFuture<Object>> bare = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            CompletableFuture<Object> future = new CompletableFuture<>();
            ScheduledFuture<?> timer = timers.schedule(() -> future.complete(null), 10, TimeUnit.MINUTES);
            future.whenComplete((v, e) -> timer.cancel(false));
            bare.add(future);
        }
        Footprint perBare = Footprint.now().growthPerItemSince(before, n);
        bare.forEach(f -> f.cancel(false));
        timers.shutdownNow();
        bare = null;

        before = Footprint.now();
        int threadsBefore;
        int threadsAdded;
        Footprint perWaiter;
        try (LockManager manager = LockManagerBuilder.newBuilder().store(new InMemoryLockStore()).nodeId("waiters")
                .waitPollInterval(Duration.ofMinutes(10)).build()) {
            TaskLock holder = manager.lockForTask(LockSpec.of("hot").at(LockLevel.DC), TaskOptions.named("holder"));
            threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
            List<CompletableFuture<TaskLock>> waiters = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                waiters.add(manager.lockForTaskAsync(LockSpec.of("hot").at(LockLevel.DC), Duration.ofMinutes(10),
                        TaskOptions.named("w" + i)).toCompletableFuture());
            }
            // each waiter's first try is refused on a task thread before it parks
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            int idleLooks = 0;
            while (idleLooks < 3 && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(100);
                idleLooks = taskThreadsIdle() ? idleLooks + 1 : 0;
            }
            perWaiter = Footprint.now().growthPerItemSince(before, n);
            threadsAdded = ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore;
            waiters.forEach(w -> w.cancel(false));
            holder.close();
        }
        report.add("16. heap per task lock waiter", "in-memory", bytes(perWaiter.liveBytes), bytes(perBare.liveBytes),
                perWaiter.liveBytes / perBare.liveBytes, String.format(Locale.ROOT, "%,d waiters of lockForTaskAsync "
                        + "for one key a task holds (future, options, waiter, timer) vs a CompletableFuture and a "
                        + "10-minute timer each; live objects by the class histogram; %d threads added for all of "
                        + "them (the manager's task threads)", n, threadsAdded));
    }

    /** Whether the manager's task threads wait for work: every waiter has had its first try and is parked. */
    private static boolean taskThreadsIdle() {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(e -> e.getKey().getName().equals("lockmanager-waiters-tasks"))
                .allMatch(e -> e.getKey().getState() == Thread.State.TIMED_WAITING
                        || e.getKey().getState() == Thread.State.WAITING);
    }

    /** The growth per item of {@code n} held locks, and of a map of {@code n} entries. */
    private record Growth(Footprint perLock, Footprint perEntry) {
    }

    private static Growth perLockAndEntry(int n) throws Exception {
        String[] keys = new String[n];
        for (int i = 0; i < n; i++) {
            keys[i] = "order-" + (1_000_000 + i);
        }
        Footprint before = Footprint.now();
        Map<String, Object> map = new ConcurrentHashMap<>();
        for (String key : keys) {
            map.put(key, Boolean.TRUE);
        }
        Footprint perEntry = Footprint.now().growthPerItemSince(before, n);
        Reference.reachabilityFence(map);
        map = null;

        before = Footprint.now();
        InMemoryLockStore store = new InMemoryLockStore();
        try (LockManager manager = LockManagerBuilder.newBuilder().store(store).nodeId("heap")
                .lease(Duration.ofMinutes(10)).renewalInterval(Duration.ofMinutes(3)).build()) {
            for (String key : keys) {
                manager.lock(key);
            }
            Footprint perLock = Footprint.now().growthPerItemSince(before, n);
            // given back first: close() would otherwise wait its shutdown timeout for this thread to unlock them
            for (String key : keys) {
                manager.unlock(key);
            }
            return new Growth(perLock, perEntry);
        }
    }

    static String bytes(double value) {
        return String.format(Locale.ROOT, "%.0f B", value);
    }

    /** Bytes of live objects and of heap in use, or their growth per item ({@link #growthPerItemSince}). */
    record Footprint(double liveBytes, double usedBytes) {
        static Footprint now() throws InterruptedException, JMException {
            Runtime runtime = Runtime.getRuntime();
            for (int i = 0; i < 5; i++) {
                System.gc();
                TimeUnit.MILLISECONDS.sleep(50);
            }
            long used = runtime.totalMemory() - runtime.freeMemory();
            return new Footprint(histogramTotalBytes(), used);
        }

        Footprint growthPerItemSince(Footprint before, int items) {
            return new Footprint((liveBytes - before.liveBytes) / items, (usedBytes - before.usedBytes) / items);
        }

        /** The "Total" line of {@code GC.class_histogram}, which collects first and counts live objects only. */
        private static long histogramTotalBytes() throws JMException {
            String histogram = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
            String[] lines = histogram.strip().split("\n");
            String[] total = lines[lines.length - 1].trim().split("\\s+");
            if (!total[0].equals("Total")) {
                throw new IllegalStateException("no Total line at the end of the class histogram: "
                        + lines[lines.length - 1]);
            }
            return Long.parseLong(total[2]);
        }
    }
}
