package io.github.lockmanager.store.redis;

import io.github.lockmanager.internal.Require;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;

/**
 * A store's side of {@link RedisIncarnation}: the quarantine it asks for, whether the servers keep every write they
 * acknowledged (seen at {@code initialize()}), the longest lease that quarantine covers, and the one warning per
 * quarantine an operator needs. Thread-safe.
 */
final class RedisQuarantine {
    private static final Logger log = LoggerFactory.getLogger(RedisQuarantine.class);

    private final Duration quarantine;
    private volatile boolean lossless;
    /** The end of the last quarantine warned of: one warning per restart, not one per refused grant. */
    private volatile long warnedEnd;

    RedisQuarantine(Duration quarantine) {
        this.quarantine = quarantine;
    }

    /** The quarantine, which is the longest lease it covers; {@code null} when off. */
    Duration longestLease() {
        return quarantine.isZero() ? null : quarantine;
    }

    void serverKeepsEveryWrite(boolean lossless) {
        this.lossless = lossless;
    }

    /** @throws IllegalArgumentException if {@code lease} is longer than the quarantine covers */
    void checkLease(Duration lease) {
        Require.argument(quarantine.isZero() || lease.compareTo(quarantine) <= 0, "lease %s is longer than the Redis "
                + "store's restartQuarantine (%s): after a restart that lost locks, a holder could still be working when "
                + "the quarantine ends. Raise restartQuarantine to the longest lease", lease, quarantine);
    }

    /** The script's arguments: quarantine ms, and 1 if a restart loses no acknowledged write. */
    String[] args() {
        return new String[] {Long.toString(quarantine.toMillis()), lossless ? "1" : "0"};
    }

    void ended(String prefix) {
        log.warn("Restart quarantine of the Redis lock store '{}*' ended by a call: no lock granted before the servers' "
                + "last start is taken to be lost", prefix);
    }

    /** What the store's description says of it: the setting's name, which a refused lease's message names. */
    @Override
    public String toString() {
        return "restartQuarantine " + quarantine;
    }

    /** Logs, once per quarantine, that grants of {@code key}'s server wait until {@code endMillis} (its clock). */
    void refused(String key, long endMillis, long nowMillis) {
        if (warnedEnd != endMillis) {
            warnedEnd = endMillis;
            log.warn("The Redis server holding lock '{}' started by {} and may have lost locks it had granted (no persistence, or persistence "
                    + "that can lose acknowledged writes): new grants wait until {} ({} ms more), one restartQuarantine "
                    + "({}) after its start, so that no former holder still works when its key is granted again",
                    key, Instant.ofEpochMilli(endMillis - quarantine.toMillis()), Instant.ofEpochMilli(endMillis),
                    endMillis - nowMillis, quarantine);
        }
    }
}
