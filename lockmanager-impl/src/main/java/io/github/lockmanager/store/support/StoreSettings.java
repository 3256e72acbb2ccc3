package io.github.lockmanager.store.support;

import io.github.lockmanager.spi.Require;
import java.time.Duration;

/**
 * The checks of the settings that every store's builder has, so that each store refuses a bad value with the same
 * message naming the setting and its range.
 */
public final class StoreSettings {
    /** The longest operation timeout a store accepts. */
    public static final Duration MAX_OPERATION_TIMEOUT = Duration.ofMinutes(10);
    public static final Duration MIN_IDLE_RECORD_RETENTION = Duration.ofSeconds(1);
    public static final Duration MAX_IDLE_RECORD_RETENTION = Duration.ofDays(365);

    private StoreSettings() {
    }

    /** An operation timeout of at least {@code min} (what the store's client can honour) and at most 10 minutes. */
    public static Duration operationTimeout(Duration operationTimeout, Duration min) {
        return within("operationTimeout", operationTimeout, min, MAX_OPERATION_TIMEOUT);
    }

    /** An idle record retention of 1 second to 365 days. */
    public static Duration idleRecordRetention(Duration idleRecordRetention) {
        return within("idleRecordRetention", idleRecordRetention, MIN_IDLE_RECORD_RETENTION, MAX_IDLE_RECORD_RETENTION);
    }

    public static RetryPolicy retries(RetryPolicy retries) {
        return Require.notNull(retries, "retries");
    }

    private static Duration within(String name, Duration value, Duration min, Duration max) {
        Require.argument(value != null && value.compareTo(min) >= 0 && value.compareTo(max) <= 0,
                "%s must be between %s and %s, was %s", name, readable(min), readable(max),
                value == null ? "null" : readable(value));
        return value;
    }

    /** A duration as an operator writes it: {@code 200 ms}, {@code 5 s}, {@code 10 min}, {@code 365 d}. */
    static String readable(Duration d) {
        long seconds = d.getSeconds();
        if (d.isNegative() || (d.getNano() != 0 && (seconds != 0 || d.getNano() % 1_000_000 != 0))) {
            return d.toString();
        }
        if (d.getNano() != 0) {
            return d.getNano() / 1_000_000 + " ms";
        }
        if (seconds != 0 && seconds % 86_400 == 0) {
            return seconds / 86_400 + " d";
        }
        if (seconds != 0 && seconds % 3_600 == 0) {
            return seconds / 3_600 + " h";
        }
        return seconds != 0 && seconds % 60 == 0 ? seconds / 60 + " min" : seconds + " s";
    }
}
