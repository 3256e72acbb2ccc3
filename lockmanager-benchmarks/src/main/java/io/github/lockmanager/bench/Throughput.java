package io.github.lockmanager.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Eight threads run a cycle as often as they can for a while: cycles per second, all threads together, and the
 * processor time each cycle cost.
 */
final class Throughput {
    static final int THREADS = 8;
    private static final Optional<CpuMeter> CPU = CpuMeter.ofThisMachine();

    /** One cycle of thread {@code thread} (0 to 7). */
    @FunctionalInterface
    interface PerThread {
        void cycle(int thread) throws Exception;
    }

    private Throughput() {
    }

    /** Cycles per second of each side, and what one cycle cost the processors, where the machine tells it. */
    record Comparison(Side ours, Side baseline) {
        double ratio() {
            return ours.perSecond() / baseline.perSecond();
        }
    }

    /** One side's cycles per second, and the processor time of one cycle (see {@link CpuMeter}). */
    record Side(double perSecond, Optional<CpuMeter.Reading> cpuPerCycle) {
    }

    /** One timed run: the cycles done in it and the processor time spent meanwhile, where known. */
    private record Run(double perSecond, long cycles, Optional<CpuMeter.Reading> cpu) {
        static Side side(Run first, Run second) {
            long cycles = first.cycles + second.cycles;
            Optional<CpuMeter.Reading> perCycle = first.cpu.flatMap(a -> second.cpu.map(a::plus))
                    .map(total -> new CpuMeter.Reading(total.jvmNanos() / cycles, total.machineNanos() / cycles));
            return new Side((first.perSecond + second.perSecond) / 2, perCycle);
        }
    }

    /**
     * Cycles per second of {@code ours} and of {@code baseline}, each timed for {@code time} in all: halves in the
     * order ours, baseline, baseline, ours, so that a drift of the machine or the store during the run (a table
     * growing, a vacuum, a neighbour's load) weighs on both sides alike rather than on whichever runs second. Before
     * that, each side runs {@code time} untimed, in two turns alternated with the other's, so that neither is timed
     * while its contended paths compile: with a quarter of {@code time} untimed, the first of three runs of figure
     * 5 on PostgreSQL read 0.86 and the next two 0.98 and 0.96.
     */
    static Comparison sideBySide(Duration time, PerThread ours, PerThread baseline) throws Exception {
        Duration half = time.dividedBy(2);
        for (int turn = 0; turn < 2; turn++) {
            run(half, ours);
            run(half, baseline);
        }
        Run first = run(half, ours);
        Run baselineFirst = run(half, baseline);
        Run baselineSecond = run(half, baseline);
        Run second = run(half, ours);
        return new Comparison(Run.side(first, second), Run.side(baselineFirst, baselineSecond));
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
