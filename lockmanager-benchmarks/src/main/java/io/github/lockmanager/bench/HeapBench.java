package io.github.lockmanager.bench;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.store.memory.InMemoryLockStore;

import java.lang.ref.Reference;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** Figure 6: heap bytes per held lock (engine table and in-memory store), against a map entry per key. */
final class HeapBench {
    private HeapBench() {
    }

    static void run(Settings settings, Report report) throws Exception {
        int n = settings.heapLocks();
        String[] keys = new String[n];
        for (int i = 0; i < n; i++) {
            keys[i] = "order-" + (1_000_000 + i);
        }
        long before = usedHeap();
        Map<String, Object> map = new ConcurrentHashMap<>();
        for (String key : keys) {
            map.put(key, Boolean.TRUE);
        }
        double perEntry = (double) (usedHeap() - before) / n;
        Reference.reachabilityFence(map);
        map = null;

        before = usedHeap();
        InMemoryLockStore store = new InMemoryLockStore();
        try (LockManager manager = LockManagerBuilder.newBuilder().store(store).nodeId("heap")
                .lease(Duration.ofMinutes(10)).renewalInterval(Duration.ofMinutes(3)).build()) {
            for (String key : keys) {
                manager.lock(key);
            }
            double perLock = (double) (usedHeap() - before) / n;
            report.add("6. heap per held lock", "in-memory", String.format(Locale.ROOT, "%.0f B", perLock),
                    String.format(Locale.ROOT, "%.0f B", perEntry), perLock / perEntry, String.format(Locale.ROOT,
                            "%,d held locks (engine table + store record) vs a ConcurrentHashMap entry per key; "
                                    + "key strings excluded from both", n));
        }
    }

    private static long usedHeap() throws InterruptedException {
        Runtime runtime = Runtime.getRuntime();
        for (int i = 0; i < 5; i++) {
            System.gc();
            TimeUnit.MILLISECONDS.sleep(50);
        }
        return runtime.totalMemory() - runtime.freeMemory();
    }
}
