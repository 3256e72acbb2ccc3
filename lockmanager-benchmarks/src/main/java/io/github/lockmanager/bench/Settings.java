package io.github.lockmanager.bench;

import java.time.Duration;

/** How big and how long each figure is measured; {@link #smokeRun()} runs everything in seconds. */
record Settings(boolean smoke, int cycles, int renewSmall, int renewLarge, int listSize, int hbaseListSize,
                int heapLocks, int handoffRounds, Duration throughputTime, boolean hbase, int storageKeys,
                int defaultRenewalLocks, Duration defaultRenewalLease, Duration warmUp) {

    static Settings fullRun() {
        return new Settings(false, 2_000, 1_000, 10_000, 100_000, 10_000, 100_000, 10, Duration.ofSeconds(3), true, 100_000, 100_000,
                Duration.ofSeconds(60), Duration.ZERO);
    }

    static Settings smokeRun() {
        return new Settings(true, 20, 20, 50, 200, 200, 2_000, 2, Duration.ofMillis(300), false, 200, 400,
                // figure 3b waits for two renewal cycles: at the default 20 s apart, most of the smoke run's time
                Duration.ofSeconds(6), Duration.ZERO);
    }

    /**
     * The same settings with {@code factor} times the cycles, for a store so fast that the usual number ends before
     * the JIT has compiled the manager's path: the figures would time the interpreter.
     */
    Settings withCyclesTimes(int factor) {
        return new Settings(smoke, cycles * factor, renewSmall, renewLarge, listSize, hbaseListSize, heapLocks,
                handoffRounds, throughputTime, hbase, storageKeys, defaultRenewalLocks, defaultRenewalLease, warmUp);
    }

    /**
     * The same settings with each cycle of {@link Rounds#alternate} warmed up for at least {@code least} (the smoke
     * run keeps none): for cycles whose warm-up count ends before the JIT has compiled them, those of a microsecond
     * or less however large it is made, and a store's, whose own code runs once a cycle.
     */
    Settings withWarmUpOf(Duration least) {
        return new Settings(smoke, cycles, renewSmall, renewLarge, listSize, hbaseListSize, heapLocks, handoffRounds,
                throughputTime, hbase, storageKeys, defaultRenewalLocks, defaultRenewalLease,
                smoke ? Duration.ZERO : least);
    }
}
