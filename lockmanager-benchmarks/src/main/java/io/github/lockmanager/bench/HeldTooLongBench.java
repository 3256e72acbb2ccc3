package io.github.lockmanager.bench;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.store.memory.InMemoryLockStore;

import java.time.Duration;

/**
 * Figure 14: what held-too-long detection costs a lock+unlock on the in-memory store, where nothing else hides it
 * (the stack captured at each acquisition), against the same manager settings without a threshold.
 */
final class HeldTooLongBench {
    /** Lock+unlock cycles per measured unit: one cycle in memory is too short to time alone. */
    private static final int BURST = 100;

    private HeldTooLongBench() {
    }

    static void run(Settings settings, Report report) throws Exception {
        try (LockManager plain = manager(LockManagerBuilder.newBuilder());
             LockManager watched = manager(LockManagerBuilder.newBuilder().heldTooLongThreshold(Duration.ofHours(1)))) {
            long[] nanos = Rounds.alternate(settings, () -> burst(plain), () -> burst(watched));
            double per = (double) Rounds.measured(settings) * BURST;
            report.add("14. lock+unlock, held-too-long detection on", "in-memory", Report.micros(nanos[1] / per),
                    Report.micros(nanos[0] / per), (double) nanos[1] / nanos[0], "heldTooLongThreshold set (a stack "
                            + "captured per acquisition); baseline: the same manager without it");
        }
    }

    private static LockManager manager(LockManagerBuilder builder) throws Exception {
        return builder.store(new InMemoryLockStore()).nodeId("held-too-long").lease(Duration.ofMinutes(10))
                .shutdownTimeout(Duration.ofSeconds(1)).build();
    }

    private static void burst(LockManager manager) throws Exception {
        for (int i = 0; i < BURST; i++) {
            manager.lock("cycle").close();
        }
    }
}
