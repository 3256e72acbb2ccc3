package io.github.lockmanager.bench;

/**
 * Cycles measured side by side: each warmed up as often as it is measured, then timed in 20 alternating rounds of a
 * twentieth of the cycles each, so that load on the machine, and its slow and fast phases (seconds long on ours),
 * fall on every side alike.
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

    /** How many times {@link #alternate} runs each cycle in all, warm-up included: for counts of store calls. */
    static int runs(Settings settings) {
        return settings.cycles() + measured(settings);
    }

    /** The total time of each cycle's measured runs, in the order given. */
    static long[] alternate(Settings settings, Cycle... cycles) throws Exception {
        for (Cycle cycle : cycles) {
            repeat(cycle, settings.cycles());
        }
        long[] nanos = new long[cycles.length];
        for (int round = 0; round < ROUNDS; round++) {
            for (int i = 0; i < cycles.length; i++) {
                long start = System.nanoTime();
                repeat(cycles[i], perRound(settings));
                nanos[i] += System.nanoTime() - start;
            }
        }
        return nanos;
    }

    private static int perRound(Settings settings) {
        return Math.max(1, settings.cycles() / ROUNDS);
    }

    private static void repeat(Cycle cycle, int times) throws Exception {
        for (int i = 0; i < times; i++) {
            cycle.run();
        }
    }
}
