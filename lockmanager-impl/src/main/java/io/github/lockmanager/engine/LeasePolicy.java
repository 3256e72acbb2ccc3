package io.github.lockmanager.engine;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.internal.Require;

import java.time.Duration;

/**
 * Every timing rule of a lease, in one place: how often renewal and abort polling run, how late an unconfirmed lock
 * is declared lost, how often the watchdog looks, when a grant came too late to use and when a renewal cycle is
 * slow. A manager has one for its default lease and one per lease its callers ask for ({@link #forLease}). Times in
 * nanoseconds are those of the manager's {@code TimeSource}. Immutable; equal when every setting is.
 */
final class LeasePolicy {
    /** The shortest lease accepted: renewal and loss detection need tens of milliseconds to work in. */
    static final Duration SHORTEST = LockSpec.SHORTEST_LEASE;
    /** The longest lease, and the longest of every interval a manager is configured with. */
    static final Duration LONGEST = LockSpec.LONGEST_LEASE;

    private final Duration lease;
    private final Duration renewalInterval;
    private final Duration abortPollInterval;
    /** Precomputed: {@link Duration#dividedBy} makes BigDecimals, too slow for every acquisition. */
    private final long leaseNanos;
    private final long lossMarginNanos;
    private final long renewalIntervalNanos;
    private final long tickNanos;
    private final long watchdogPeriodNanos;

    private LeasePolicy(Duration lease, Duration renewalInterval, Duration abortPollInterval) {
        this.lease = lease;
        this.renewalInterval = renewalInterval;
        this.abortPollInterval = abortPollInterval;
        this.leaseNanos = lease.toNanos();
        this.lossMarginNanos = lossMargin().toNanos();
        this.renewalIntervalNanos = renewalInterval.toNanos();
        this.tickNanos = tick().toNanos();
        this.watchdogPeriodNanos = watchdogPeriod().toNanos();
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

    /**
     * Checks a lease, a manager's or one a caller asks for.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    static Duration checkLease(Duration lease) {
        return LockSpec.checkLease(lease);
    }

    /**
     * The policy of a lock taken with a lease of its own: renewed at this policy's interval, or more often when a
     * third of {@code callLease} is shorter, so that two renewals can still fail before it runs out; its loss margin,
     * watchdog period and grant deadline follow {@code callLease}. Abort polling stays as it is.
     */
    LeasePolicy forLease(Duration callLease) {
        if (callLease.equals(lease)) {
            return this;
        }
        Duration third = callLease.dividedBy(3);
        return new LeasePolicy(callLease, third.compareTo(renewalInterval) < 0 ? third : renewalInterval,
                abortPollInterval);
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

    long tickNanos() {
        return tickNanos;
    }

    long watchdogPeriodNanos() {
        return watchdogPeriodNanos;
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
        return untilAtRisk(confirmedUntilNanos, nowNanos) <= 0;
    }

    /** How long from {@code nowNanos} until a lock confirmed until {@code confirmedUntilNanos} is {@link #atRisk}. */
    long untilAtRisk(long confirmedUntilNanos, long nowNanos) {
        return confirmedUntilNanos - lossMarginNanos - nowNanos;
    }

    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof LeasePolicy other && leaseNanos == other.leaseNanos
                && renewalIntervalNanos == other.renewalIntervalNanos && abortPollInterval.equals(other.abortPollInterval);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(leaseNanos);
    }

    @Override
    public String toString() {
        return "lease " + lease + ", renewed every " + renewalInterval;
    }
}
