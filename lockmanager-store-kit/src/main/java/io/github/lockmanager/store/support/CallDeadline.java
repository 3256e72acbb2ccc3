package io.github.lockmanager.store.support;

import java.util.concurrent.atomic.AtomicInteger;

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
    /**
     * How many threads have a deadline set now. While none has, a store call reads no thread-local: a plain
     * {@code lock()}, on a virtual thread say, makes no thread-local map for it.
     */
    private static final AtomicInteger SET = new AtomicInteger();

    private CallDeadline() {
    }

    /**
     * Bounds the calling thread's store calls by {@code deadlineNanos} ({@link System#nanoTime()}) until {@link #clear},
     * which must follow in a {@code finally} block.
     */
    public static void set(long deadlineNanos) {
        if (deadlineNanos == NONE) {
            clear();
            return;
        }
        long[] mine = DEADLINE.get();
        if (mine[0] == NONE) {
            SET.incrementAndGet();
        }
        mine[0] = deadlineNanos;
    }

    /** Removes the calling thread's deadline. */
    public static void clear() {
        if (SET.get() == 0) {
            return;
        }
        long[] mine = DEADLINE.get();
        if (mine[0] != NONE) {
            mine[0] = NONE;
            SET.decrementAndGet();
        }
    }

    /**
     * What is left of {@code budgetNanos} counted from now, cut to the calling thread's deadline if it has one: never
     * more than {@code budgetNanos}, and 0 or less when the deadline has passed.
     */
    public static long remainingNanos(long budgetNanos) {
        if (SET.get() == 0) {
            return budgetNanos;
        }
        long deadline = DEADLINE.get()[0];
        return deadline == NONE ? budgetNanos : Math.min(budgetNanos, deadline - System.nanoTime());
    }
}
