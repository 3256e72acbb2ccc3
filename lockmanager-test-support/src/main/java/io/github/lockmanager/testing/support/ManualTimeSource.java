package io.github.lockmanager.testing.support;

import io.github.lockmanager.internal.Require;
import io.github.lockmanager.TimeSource;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link TimeSource} that moves only when told to: for tests of leases and expiry that advance time
 * instead of sleeping. Thread-safe.
 */
public final class ManualTimeSource implements TimeSource {
    private final Instant origin;
    private final AtomicLong nanos = new AtomicLong();

    /** Starts at {@code 2000-01-01T00:00:00Z}. */
    public ManualTimeSource() {
        this(Instant.parse("2000-01-01T00:00:00Z"));
    }

    public ManualTimeSource(Instant origin) {
        Require.notNull(origin, "origin");
        this.origin = origin;
    }

    /**
     * Moves time forward.
     *
     * @throws IllegalArgumentException if {@code amount} is null or negative: time never runs backwards
     */
    public void advance(Duration amount) {
        if (amount == null || amount.isNegative()) {
            throw new IllegalArgumentException("amount must be zero or positive, was " + amount);
        }
        nanos.addAndGet(amount.toNanos());
    }

    @Override
    public long nanoTime() {
        return nanos.get();
    }

    @Override
    public Instant now() {
        return origin.plusNanos(nanos.get());
    }

    @Override
    public String toString() {
        return "ManualTimeSource[" + now() + "]";
    }
}
