package io.github.lockmanager.store.support;

/**
 * The deadline of the caller a store call runs for, when it has one shorter than the store's operation timeout: a
 * wait for a lock ({@code waitForLock(key, maxWait)}) must not run past {@code maxWait} inside a store call that a
 * partition holds up. The engine sets it on the calling thread around each try of a wait; {@link RetryPolicy#call}
 * bounds its budget by it, so every store built on the kit honours it. A store that times its I/O otherwise asks
 * {@link #remainingNanos}. Thread-confined: each thread has its own.
 */
public final class CallDeadline {
    /** No deadline: the store's operation timeout alone bounds the call. */
    public static final long NONE = Long.MAX_VALUE;

    private static final ThreadLocal<long[]> DEADLINE = ThreadLocal.withInitial(() -> new long[]{NONE});

    private CallDeadline() {
    }

    /**
     * Bounds the calling thread's store calls by {@code deadlineNanos} ({@link System#nanoTime()}) until {@link #clear};
     * {@link #NONE} for no bound.
     */
    public static void set(long deadlineNanos) {
        DEADLINE.get()[0] = deadlineNanos;
    }

    /** Removes the calling thread's deadline. */
    public static void clear() {
        DEADLINE.get()[0] = NONE;
    }

    /**
     * What is left of {@code budgetNanos} counted from now, cut to the calling thread's deadline if it has one: never
     * more than {@code budgetNanos}, and 0 or less when the deadline has passed.
     */
    public static long remainingNanos(long budgetNanos) {
        long deadline = DEADLINE.get()[0];
        if (deadline == NONE) {
            return budgetNanos;
        }
        return Math.min(budgetNanos, deadline - System.nanoTime());
    }
}
