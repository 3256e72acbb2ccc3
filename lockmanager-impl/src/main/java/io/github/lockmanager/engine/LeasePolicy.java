package io.github.lockmanager.engine;

import java.time.Duration;

/**
 * Every timing rule of a manager's leases, in one place: how often renewal and abort polling run, how late an
 * unconfirmed lock is declared lost, how often the watchdog looks, when a grant came too late to use and when a
 * renewal cycle is slow. Times in nanoseconds are those of the manager's {@code TimeSource}. Immutable.
 */
final class LeasePolicy {
    private final Duration lease;
    private final Duration renewalInterval;
    private final Duration abortPollInterval;
    /** Precomputed: {@link Duration#dividedBy} makes BigDecimals, too slow for every acquisition. */
    private final long leaseNanos;
    private final long lossMarginNanos;
    private final long renewalIntervalNanos;

    private LeasePolicy(Duration lease, Duration renewalInterval, Duration abortPollInterval) {
        this.lease = lease;
        this.renewalInterval = renewalInterval;
        this.abortPollInterval = abortPollInterval;
        this.leaseNanos = lease.toNanos();
        this.lossMarginNanos = lossMargin().toNanos();
        this.renewalIntervalNanos = renewalInterval.toNanos();
    }

    /**
     * @param renewalInterval {@code null} for the default, a third of the lease
     * @throws IllegalStateException if the renewal interval is longer than a third of the lease
     */
    static LeasePolicy of(Duration lease, Duration renewalInterval, Duration abortPollInterval) {
        Duration renewal = renewalInterval != null ? renewalInterval : lease.dividedBy(3);
        if (renewal.multipliedBy(3).compareTo(lease) > 0) {
            throw new IllegalStateException("renewalInterval (" + renewal + ") must be at most a third of the lease ("
                    + lease + "), so that two renewals can fail before the lease runs out");
        }
        return new LeasePolicy(lease, renewal, abortPollInterval);
    }

    Duration lease() {
        return lease;
    }

    Duration renewalInterval() {
        return renewalInterval;
    }

    Duration abortPollInterval() {
        return abortPollInterval;
    }

    /** How often the keeper thread runs: often enough for both renewal and abort polling. */
    Duration tick() {
        return renewalInterval.compareTo(abortPollInterval) <= 0 ? renewalInterval : abortPollInterval;
    }

    /**
     * How long before the known end of a lease an unconfirmed lock is declared lost: the holder must hear of
     * it before another node can take the key, despite a loaded machine's scheduling delays and clock-rate
     * differences, while renewal (every third of the lease at most, retried each tick) still gets two chances.
     */
    Duration lossMargin() {
        return lease.dividedBy(5);
    }

    /** How often the watchdog looks for leases that are about to end unconfirmed: at least as often as the keeper runs. */
    Duration watchdogPeriod() {
        Duration twentieth = lease.dividedBy(20);
        return twentieth.compareTo(tick()) <= 0 ? twentieth : tick();
    }

    /** How long a renewal cycle may take before the keeper warns that it is growing towards the lease. */
    Duration slowCycleWarning() {
        return lease.dividedBy(4);
    }

    /** How long a renewal cycle may take at the most before renewed locks are declared lost although the store is up. */
    Duration longestSafeCycle() {
        return lease.minus(lossMargin()).minus(renewalInterval);
    }

    /** The end of a lease that a store call sent at {@code sentAtNanos} started or extended. */
    long leaseEnd(long sentAtNanos) {
        return sentAtNanos + leaseNanos;
    }

    /** When the next renewal is due after one at {@code nowNanos} that every lock answered. */
    long nextRenewal(long nowNanos) {
        return nowNanos + renewalIntervalNanos;
    }

    /** Whether a grant whose store call took {@code tookNanos} leaves its holder no time it could rely on. */
    boolean tooLateToUse(long tookNanos) {
        return tookNanos >= leaseNanos - lossMarginNanos;
    }

    /** Whether a lock whose lease is confirmed until {@code confirmedUntilNanos} must be declared lost at {@code nowNanos}. */
    boolean atRisk(long confirmedUntilNanos, long nowNanos) {
        return nowNanos + lossMarginNanos - confirmedUntilNanos >= 0;
    }
}
