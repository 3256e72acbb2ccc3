package io.github.lockmanager.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Processor time spent so far by this JVM (all its threads, user and kernel mode) and by the whole machine (user,
 * nice, system and interrupt time of every processor, from {@code /proc/stat}): the difference of two readings says
 * who worked while a figure ran, the benchmark or the store's server beside it. Linux only.
 */
final class CpuMeter {
    private static final Path STAT = Path.of("/proc/stat");
    /** {@code /proc/stat} counts in USER_HZ, which Linux fixes at 100 per second for user space. */
    private static final long NANOS_PER_TICK = 10_000_000L;

    /** Processor time in nanoseconds: this JVM's, and the machine's including this JVM's. */
    record Reading(long jvmNanos, long machineNanos) {
        Reading minus(Reading earlier) {
            return new Reading(jvmNanos - earlier.jvmNanos, machineNanos - earlier.machineNanos);
        }

        Reading plus(Reading other) {
            return new Reading(jvmNanos + other.jvmNanos, machineNanos + other.machineNanos);
        }
    }

    private final com.sun.management.OperatingSystemMXBean os;

    private CpuMeter(com.sun.management.OperatingSystemMXBean os) {
        this.os = os;
    }

    /** The meter of this machine, or empty where the JVM or the operating system does not tell processor time. */
    static Optional<CpuMeter> ofThisMachine() {
        if (!(ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os)
                || os.getProcessCpuTime() < 0 || !Files.isReadable(STAT)) {
            return Optional.empty();
        }
        return Optional.of(new CpuMeter(os));
    }

    Reading read() {
        return new Reading(os.getProcessCpuTime(), machineNanos());
    }

    /* the first line sums all processors: user nice system idle iowait irq softirq steal guest guest_nice */
    private static long machineNanos() {
        try (var lines = Files.lines(STAT)) {
            String[] ticks = lines.findFirst().orElseThrow().trim().split("\\s+");
            long busy = 0;
            for (int field : new int[] {1, 2, 3, 6, 7}) {
                busy += Long.parseLong(ticks[field]);
            }
            return busy * NANOS_PER_TICK;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + STAT, e);
        }
    }
}
