package io.github.lockmanager.bench;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.spi.LockStore;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Figure 3b: one node holding N locks at the default settings (lease 60 s, renewal every 20 s, batches of 200; the
 * smoke run shortens the lease only):
 * how long a full renewal cycle takes, against the renewal interval it must fit in, with the store calls
 * counted and every loss counted. The locks are taken and released by 8 holder threads, as a service would.
 */
final class DefaultRenewalBench {
    private static final int HOLDERS = 8;

    private DefaultRenewalBench() {
    }

    static void run(String storeName, LockStore store, int n, Duration lease, Report report) throws Exception {
        TimedStore timed = new TimedStore(store);
        AtomicInteger losses = new AtomicInteger();
        try (LockManager manager = LockManagerBuilder.newBuilder().store(timed).nodeId("defaults")
                .lease(lease)
                .clientId("bench-defaults-" + UUID.randomUUID().toString().substring(0, 8))
                .lossListener((lock, holder, reason) -> losses.incrementAndGet()).build()) {
            Duration interval = lease.dividedBy(3);
            CountDownLatch taken = new CountDownLatch(HOLDERS);
            CountDownLatch letGo = new CountDownLatch(1);
            ExecutorService holders = Executors.newFixedThreadPool(HOLDERS);
            List<Future<?>> done = new ArrayList<>();
            for (int h = 0; h < HOLDERS; h++) {
                int first = h;
                done.add(holders.submit(() -> {
                    List<LockResource> held = new ArrayList<>();
                    for (int k = first; k < n; k += HOLDERS) {
                        held.add(manager.lock("d-" + k));
                    }
                    taken.countDown();
                    letGo.await();
                    held.forEach(LockResource::close);
                    return null;
                }));
            }
            if (!taken.await(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException(n + " locks were not taken within 10 minutes");
            }
            long acquired = System.nanoTime();
            List<TimedStore.Span> cycle = StoreBench.awaitFullCycle(timed, acquired, n);
            long took = cycle.get(cycle.size() - 1).endNanos() - cycle.get(0).startNanos();
            letGo.countDown();
            for (Future<?> f : done) {
                f.get();
            }
            holders.shutdown();
            report.add("3b. renewal at defaults, " + n + " locks", storeName, cycle.size() + " calls, "
                            + Report.millis(took), "renewal interval " + interval.toSeconds() + " s",
                    took / (double) interval.toNanos(), String.format(Locale.ROOT, "lease %d s, batch 200: ⌈%d/200⌉ = %d "
                            + "calls expected, %d counted; %d locks lost while held (must be 0); ratio: one cycle / the "
                            + "interval it must fit in", lease.toSeconds(), n, (n + 199) / 200, cycle.size(), losses.get()));
        }
    }
}
