package io.github.lockmanager.store.support;

/**
 * The rule by which a store's fencing tokens rise across the life of a key, written once for every store whose
 * per-key counter can vanish (a row purged after idling, a record expired, a server restarted without persistence).
 *
 * <p>A key's token is {@code max(previous + 1, TOKENS_PER_MILLISECOND * now)}, {@code now} being the store's own
 * clock in epoch milliseconds at the write: each grant adds 1 to the counter, and a counter that is new (or was
 * purged, or lost) starts at {@code TOKENS_PER_MILLISECOND * now}. Why that is above every token the key ever had:
 * fewer than {@value #TOKENS_PER_MILLISECOND} grants of one key fit in a millisecond, so the counter never runs ahead
 * of {@code TOKENS_PER_MILLISECOND * (the time of its last grant + 1 ms)}; a counter that starts again later than that
 * starts above it. It holds as long as the store's clock does not step back across the gap (a purge waits at least
 * the idle-record retention, far longer than any clock correction).
 *
 * <p>Stores apply it inside their own atomic write (an SQL expression, a server-side expression, an increment) with
 * {@link #TOKENS_PER_MILLISECOND}; code that computes a token in Java uses {@link #next}. The TCK checks the outcome
 * on every store: tokens rise across release, expiry and purge.
 */
public final class FencingEpoch {
    /** How many grants of one key the rule allows per millisecond of the store's clock. */
    public static final long TOKENS_PER_MILLISECOND = 1000;

    private FencingEpoch() {
    }

    /**
     * Below this a counter has not been started on the store's clock yet ({@link #first} of 2020-01-01): a store that
     * moves its counter with plain increments (+1 each grant) and starts it lazily tells the two states apart by it.
     */
    public static final long STARTED_FLOOR = TOKENS_PER_MILLISECOND * 1_577_836_800_000L;

    /** Whether {@code counter} has been started on the store's clock ({@link #STARTED_FLOOR}). */
    public static boolean isStarted(long counter) {
        return counter >= STARTED_FLOOR;
    }

    /** The token a counter starts at when it is new, purged or lost, at {@code storeMillis} on the store's clock. */
    public static long first(long storeMillis) {
        return Math.multiplyExact(storeMillis, TOKENS_PER_MILLISECOND);
    }

    /** The token of the grant after one with {@code previous}, at {@code storeMillis} on the store's clock. */
    public static long next(long previous, long storeMillis) {
        return Math.max(previous + 1, first(storeMillis));
    }
}
