package io.github.lockmanager;

import java.time.Instant;

/**
 * Where a lock manager and the in-memory store read time. Leases are measured with {@link #nanoTime()},
 * which must never run backwards; {@link #now()} only stamps records for display. Tests inject a
 * {@code io.github.lockmanager.testing.support.ManualTimeSource} (in {@code lockmanager-test-support}) to move time forward instead of
 * sleeping.
 */
public interface TimeSource {

    /** A monotonic reading in nanoseconds, as {@link System#nanoTime()}; only differences have meaning. */
    long nanoTime();

    /** The wall-clock time. */
    Instant now();

    /** The JVM's own clocks. */
    static TimeSource system() {
        return SystemTimeSource.INSTANCE;
    }
}
