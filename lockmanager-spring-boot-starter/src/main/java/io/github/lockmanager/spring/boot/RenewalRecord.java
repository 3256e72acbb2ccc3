package io.github.lockmanager.spring.boot;

import io.github.lockmanager.LockEventListener;

import java.time.Duration;
import java.time.Instant;

/**
 * How the last renewal batch of the manager went, for {@link LockManagerHealthIndicator}. Written by the manager's
 * renewal thread, read by health checks.
 */
public final class RenewalRecord implements LockEventListener {
    private volatile Outcome last;

    /** One batch: when it ended, how many leases it had and, if its store call failed, why. */
    record Outcome(Instant at, int locks, Duration took, Exception failure) {
    }

    @Override
    public void renewed(int locks, Duration took) {
        last = new Outcome(Instant.now(), locks, took, null);
    }

    @Override
    public void renewalFailed(int locks, Exception cause) {
        last = new Outcome(Instant.now(), locks, null, cause);
    }

    /** {@code null} before the first batch. */
    Outcome last() {
        return last;
    }

    @Override
    public String toString() {
        return "RenewalRecord[" + last + "]";
    }
}
