package io.github.lockmanager.store.support;

import io.github.lockmanager.internal.Require;

import java.time.Duration;

/**
 * The settings every store's builder has, with their checks: a store's builder extends it ({@code B} is that
 * builder, so chained calls keep its type), adds what its database needs, and reads these three when it builds.
 * Each setter refuses a bad value with an {@link IllegalArgumentException} naming the setting and its range. Not
 * thread-safe, as builders are not.
 */
public abstract class StoreBuilder<B extends StoreBuilder<B>> {
    /** The longest operation timeout a store accepts. */
    public static final Duration MAX_OPERATION_TIMEOUT = Duration.ofMinutes(10);
    public static final Duration MIN_IDLE_RECORD_RETENTION = Duration.ofSeconds(1);
    public static final Duration MAX_IDLE_RECORD_RETENTION = Duration.ofDays(365);

    private final Duration minOperationTimeout;
    private Duration operationTimeout = Duration.ofSeconds(5);
    private Duration idleRecordRetention = Duration.ofHours(1);
    private RetryPolicy retries;

    /**
     * @param minOperationTimeout the shortest operation timeout the store's client can honour
     * @param defaultRetries      the retries of a store whose user sets none
     */
    protected StoreBuilder(Duration minOperationTimeout, RetryPolicy defaultRetries) {
        this.minOperationTimeout = Require.notNull(minOperationTimeout, "minOperationTimeout");
        this.retries = Require.notNull(defaultRetries, "defaultRetries");
    }

    /**
     * The longest one store call may take, its retries included: from the store's minimum to 10 minutes. Keep it
     * well under the lock manager's renewal interval. Default 5 s.
     */
    public B operationTimeout(Duration operationTimeout) {
        this.operationTimeout = within("operationTimeout", operationTimeout, minOperationTimeout,
                MAX_OPERATION_TIMEOUT);
        return self();
    }

    /**
     * How long a key's record is kept after its last lock ended, so that its fencing counter keeps growing, before
     * the store deletes it (each store's documentation says how): 1 second to 365 days. A key locked again after
     * that gets a token above every earlier one as long as the store's clock never steps back by more than this.
     * Default 1 hour.
     */
    public B idleRecordRetention(Duration idleRecordRetention) {
        this.idleRecordRetention = within("idleRecordRetention", idleRecordRetention, MIN_IDLE_RECORD_RETENTION,
                MAX_IDLE_RECORD_RETENTION);
        return self();
    }

    /** How transient failures of the store are retried within the operation timeout. */
    public B retries(RetryPolicy retries) {
        this.retries = Require.notNull(retries, "retries");
        return self();
    }

    public final Duration getOperationTimeout() {
        return operationTimeout;
    }

    public final Duration getIdleRecordRetention() {
        return idleRecordRetention;
    }

    public final RetryPolicy getRetries() {
        return retries;
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
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
