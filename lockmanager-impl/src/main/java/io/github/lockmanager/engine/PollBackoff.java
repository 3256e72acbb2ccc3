package io.github.lockmanager.engine;

import java.util.random.RandomGenerator;

/**
 * The pauses of one wait for a key held on another node. The first is an eighth of the caller's interval, so a short
 * hold is followed quickly; each ceiling doubles up to the interval, so a long hold costs no more store calls than
 * polling at the interval would. Each pause is drawn between half its ceiling and the ceiling, so waiters that
 * started together drift apart instead of hitting the store at the same moments. No pause exceeds the interval.
 */
final class PollBackoff {
    private static final int FIRST_FRACTION = 8;

    private final long intervalNanos;
    private final RandomGenerator random;
    private long ceilingNanos;

    PollBackoff(long intervalNanos, RandomGenerator random) {
        this.intervalNanos = intervalNanos;
        this.random = random;
        this.ceilingNanos = Math.max(1, intervalNanos / FIRST_FRACTION);
    }

    long nextNanos() {
        long ceiling = ceilingNanos;
        ceilingNanos = ceiling > intervalNanos / 2 ? intervalNanos : ceiling * 2;
        return ceiling - random.nextLong(ceiling / 2 + 1);
    }
}
