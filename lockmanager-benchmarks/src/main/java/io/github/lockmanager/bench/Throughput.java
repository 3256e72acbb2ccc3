package io.github.lockmanager.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

/**
 * Eight threads run a cycle as often as they can for a while: cycles per second, all threads together, and the
 * processor time each cycle cost.
 */
final class Throughput {
    static final int THREADS = 8;
    /** Timed rounds of the comparisons that performance goals are judged by (figures 5 and 9). */
    static final int GOAL_ROUNDS = 3;
    private static final Optional<CpuMeter> CPU = CpuMeter.ofThisMachine();

    /** One cycle of thread {@code thread} (0 to 7). */
    @FunctionalInterface
    interface PerThread {
        void cycle(int thread) throws Exception;
    }

    private Throughput() {
    }

    /**
     * Cycles per second of each side over all timed rounds, what one cycle cost the processors, where the machine
     * tells it, and each round's ratio on its own.
     */
    record Comparison(Side ours, Side baseline, List<Double> roundRatios) {
        double ratio() {
            return ours.perSecond() / baseline.perSecond();
        }

        /** For a report's note, for example {@code "3 timed rounds read 0.82, 0.85, 0.79"}. */
        String roundsNote() {
            return roundRatios.size() + " timed rounds read " + roundRatios.stream()
                    .map(r -> String.format(Locale.ROOT, "%.2f", r)).collect(Collectors.joining(", "));
        }
    }

    /** One side's cycles per second, and the processor time of one cycle (see {@link CpuMeter}). */
    record Side(double perSecond, Optional<CpuMeter.Reading> cpuPerCycle) {
        /** The runs' mean rate (they are equally long) and their processor time per cycle, all cycles together. */
        static Side of(List<Run> runs) {
            long cycles = runs.stream().mapToLong(Run::cycles).sum();
            Optional<CpuMeter.Reading> total = Optional.of(new CpuMeter.Reading(0, 0));
            for (Run run : runs) {
                total = total.flatMap(sum -> run.cpu().map(sum::plus));
            }
            Optional<CpuMeter.Reading> perCycle = total
                    .map(sum -> new CpuMeter.Reading(sum.jvmNanos() / cycles, sum.machineNanos() / cycles));
            return new Side(runs.stream().mapToDouble(Run::perSecond).average().orElseThrow(), perCycle);
        }
    }

    /** One timed run: the cycles done in it and the processor time spent meanwhile, where known. */
    private record Run(double perSecond, long cycles, Optional<CpuMeter.Reading> cpu) {
    }

    /**
     * Cycles per second of {@code ours} and of {@code baseline}, each timed for {@code time} in each of
     * {@code rounds} rounds: halves in the order ours, baseline, baseline, ours, so that a drift of the machine or the
     * store during a round (a table growing, a vacuum, a neighbour's load) weighs on both sides alike rather than on
     * whichever runs second. Before that, each side runs {@code time} untimed, in two turns alternated with the
     * other's, so that neither is timed while its contended paths compile: with a quarter of {@code time} untimed,
     * the first of three runs of figure 5 on PostgreSQL read 0.86 and the next two 0.98 and 0.96. More rounds narrow
     * what one comparison reads where the machine's slow and fast phases last longer than a round: on MariaDB on a
     * 2-core Intel Xeon, six one-round comparisons in a row read from 0.54 to 0.78.
     */
    static Comparison sideBySide(Duration time, int rounds, PerThread ours, PerThread baseline) throws Exception {
        if (rounds < 1) {
            throw new IllegalArgumentException("rounds must be at least 1, was " + rounds);
        }
        Duration half = time.dividedBy(2);
        for (int turn = 0; turn < 2; turn++) {
            run(half, ours);
            run(half, baseline);
        }
        List<Run> oursRuns = new ArrayList<>();
        List<Run> baselineRuns = new ArrayList<>();
        List<Double> roundRatios = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            Run first = run(half, ours);
            Run baselineFirst = run(half, baseline);
            Run baselineSecond = run(half, baseline);
            Run second = run(half, ours);
            roundRatios.add((first.perSecond + second.perSecond) / (baselineFirst.perSecond + baselineSecond.perSecond));
            oursRuns.addAll(List.of(first, second));
            baselineRuns.addAll(List.of(baselineFirst, baselineSecond));
        }
        return new Comparison(Side.of(oursRuns), Side.of(baselineRuns), List.copyOf(roundRatios));
    }

    private static Run run(Duration time, PerThread cycle) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        Optional<CpuMeter.Reading> cpuBefore = CPU.map(CpuMeter::read);
        long deadline = System.nanoTime() + time.toNanos();
        List<Future<Long>> counts = new ArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            counts.add(pool.submit(() -> {
                long done = 0;
                while (System.nanoTime() < deadline) {
                    cycle.cycle(thread);
                    done++;
                }
                return done;
            }));
        }
        long total = 0;
        for (Future<Long> count : counts) {
            total += count.get();
        }
        long elapsed = System.nanoTime() - start;
        Optional<CpuMeter.Reading> cpu = cpuBefore.map(before -> CPU.orElseThrow().read().minus(before));
        pool.shutdown();
        return new Run(total * 1e9 / elapsed, total, cpu);
    }
}
