package io.github.lockmanager.bench;

import java.util.Arrays;

/**
 * Cycles measured side by side: each warmed up as often as it is measured, then timed in 20 alternating rounds of a
 * twentieth of the cycles each, so that load on the machine, and its slow and fast phases (seconds long on ours),
 * fall on every side alike. Each cycle's turn in a round begins with a tenth of its runs untimed: the first runs
 * after another cycle's turn are slower (on PostgreSQL, the switch to other statements and rows), and in a fixed
 * order that toll fell unevenly, mostly on the first cycle, ours (figure 2 on PostgreSQL, 5 runs each way: a median
 * 1.16 with the first runs timed, spread 1.07 to 1.20, against 1.12, spread 1.10 to 1.15, without them).
 */
final class Rounds {
    static final int ROUNDS = 20;

    /** One unit of measured work. */
    @FunctionalInterface
    interface Cycle {
        void run() throws Exception;
    }

    private Rounds() {
    }

    /** How many times {@link #alternate} runs each cycle while timing it. */
    static int measured(Settings settings) {
        return ROUNDS * perRound(settings);
    }

    /**
     * How many times {@link #alternate} runs each cycle in all, warm-up included: for counts of round trips.
     *
     * @throws IllegalArgumentException for settings with a least warm-up time, whose warm-up runs are not counted
     */
    static int runs(Settings settings) {
        if (!settings.warmUp().isZero()) {
            throw new IllegalArgumentException("a warm-up of at least " + settings.warmUp() + " runs an uncounted "
                    + "number of cycles: count round trips with settings without one");
        }
        return settings.cycles() + ROUNDS * (leadIn(settings) + perRound(settings));
    }

    /** The total time of each cycle's measured runs, in the order given. */
    static long[] alternate(Settings settings, Cycle... cycles) throws Exception {
        return alternate(settings, null, cycles);
    }

    /** The total time of each cycle's measured runs, and the time of each of those runs, sorted. */
    record Timed(long[] totals, long[][] sortedRuns) {
        /** The time at {@code quantile} (0 to 1) of cycle {@code i}'s runs. */
        long quantile(int i, double quantile) {
            long[] runs = sortedRuns[i];
            return runs[Math.min(runs.length - 1, (int) Math.floor(quantile * runs.length))];
        }
    }

    /**
     * {@link #alternate(Settings, Cycle...)}, also timing each measured run on its own: only for cycles of
     * microseconds, which two clock readings a run do not distort.
     */
    static Timed alternateTimingEach(Settings settings, Cycle... cycles) throws Exception {
        long[][] runs = new long[cycles.length][measured(settings)];
        long[] totals = alternate(settings, runs, cycles);
        for (long[] times : runs) {
            Arrays.sort(times);
        }
        return new Timed(totals, runs);
    }

    private static long[] alternate(Settings settings, long[][] runs, Cycle... cycles) throws Exception {
        for (Cycle cycle : cycles) {
            warmUp(cycle, settings);
        }
        int perRound = perRound(settings);
        long[] nanos = new long[cycles.length];
        for (int round = 0; round < ROUNDS; round++) {
            for (int i = 0; i < cycles.length; i++) {
                repeat(cycles[i], leadIn(settings));
                long start = System.nanoTime();
                if (runs == null) {
                    repeat(cycles[i], perRound);
                } else {
                    for (int k = round * perRound; k < (round + 1) * perRound; k++) {
                        long began = System.nanoTime();
                        cycles[i].run();
                        runs[i][k] = System.nanoTime() - began;
                    }
                }
                nanos[i] += System.nanoTime() - start;
            }
        }
        return nanos;
    }

    /** Runs {@code cycle} as many times as it is measured, and on until the settings' least warm-up time has passed. */
    private static void warmUp(Cycle cycle, Settings settings) throws Exception {
        long until = System.nanoTime() + settings.warmUp().toNanos();
        repeat(cycle, settings.cycles());
        while (System.nanoTime() - until < 0) {
            repeat(cycle, perRound(settings));
        }
    }

    /** How many times {@link #alternate} times each cycle in one round. */
    static int perRound(Settings settings) {
        return Math.max(1, settings.cycles() / ROUNDS);
    }

    /** The untimed runs that begin each turn (see the class comment). */
    private static int leadIn(Settings settings) {
        return Math.max(1, perRound(settings) / 10);
    }

    private static void repeat(Cycle cycle, int times) throws Exception {
        for (int i = 0; i < times; i++) {
            cycle.run();
        }
    }
}
