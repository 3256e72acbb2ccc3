package io.github.lockmanager.store.support;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;

import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.nio.channels.ClosedByInterruptException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Bounded retries with exponential backoff for a store's transient failures, all within one time budget per
 * call (the store's operation timeout, cut to the caller's {@link CallDeadline} when that comes first): no attempt
 * starts after the budget is spent, and each attempt is told how much of it is left, so that a store can bound its
 * own I/O by it.
 *
 * <ul>
 *   <li>A {@linkplain Failure#PERMANENT permanent} failure ends the call at once, with the code the
 *       {@link Classifier} gives it.</li>
 *   <li>A {@linkplain Failure#TRANSIENT transient} one is retried after a backoff, up to the attempt limit, and
 *       then reported as {@code RETRIES_EXHAUSTED}.</li>
 *   <li>A {@linkplain Failure#BROKEN_CONNECTION broken connection} (one a pool handed out after the server
 *       dropped it) is retried at once on the next connection, without using up an attempt, up to
 *       {@value #MAX_BROKEN_CONNECTIONS} times: a pool that does not test its connections hands out every dead
 *       one in turn, and a lease must not be put at risk by that.</li>
 *   <li>An interrupt ends the call at once with the thread's interrupt flag set, wherever it appears in the
 *       failure's cause chain: client libraries wrap it, and some clear the flag.</li>
 * </ul>
 */
public final class RetryPolicy {
    /** How many broken connections one call skips before they count as ordinary transient failures. */
    public static final int MAX_BROKEN_CONNECTIONS = 16;

    /** What a failed attempt means for the call. */
    public enum Failure { PERMANENT, TRANSIENT, BROKEN_CONNECTION }

    /** One try at a store call. */
    @FunctionalInterface
    public interface Attempt<T> {
        /** @param remainingMillis how much of the call's budget is left; at least 1 */
        T run(long remainingMillis) throws Exception;
    }

    /** Tells the failures worth retrying from those that will fail again; says how to report them. */
    @FunctionalInterface
    public interface Classifier {
        Failure classify(Exception failure);

        /** The code of a permanent failure. Default {@code CONNECTION_ERROR}. */
        default ErrorCode permanentCode(Exception failure) {
            return ErrorCode.CONNECTION_ERROR;
        }

        /** The failure as an operator should read it in a message. Default its {@code toString()}. */
        default String describe(Exception failure) {
            return failure.toString();
        }
    }

    private final int attempts;
    private final Duration initialBackoff;
    private final Duration maxBackoff;

    /**
     * @param attempts       tries in all, at least 1
     * @param initialBackoff the pause after the first failure; doubled after each further one
     * @param maxBackoff     the longest pause
     */
    public RetryPolicy(int attempts, Duration initialBackoff, Duration maxBackoff) {
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1, was " + attempts);
        }
        if (initialBackoff == null || initialBackoff.isNegative() || maxBackoff == null
                || maxBackoff.compareTo(initialBackoff) < 0 || maxBackoff.compareTo(Duration.ofMinutes(1)) > 0) {
            throw new IllegalArgumentException("backoff must be 0 <= initial (" + initialBackoff + ") <= max ("
                    + maxBackoff + ") <= 1 minute");
        }
        this.attempts = attempts;
        this.initialBackoff = initialBackoff;
        this.maxBackoff = maxBackoff;
    }

    public int attempts() {
        return attempts;
    }

    /**
     * Runs {@code attempt} until it succeeds, fails permanently, has failed {@link #attempts()} times, or
     * {@code budget} has passed.
     *
     * @param what names the call in error messages, for example {@code "acquire lock 'x'"}
     */
    public <T> T call(String what, Duration budget, Classifier classifier, Attempt<T> attempt)
            throws LockManagerException {
        return run(what, budget, "its operation timeout of " + budget.toMillis() + " ms", Long.MAX_VALUE, classifier,
                attempt);
    }

    /**
     * Runs {@code attempt} up to {@link #attempts()} times, each within {@code perAttempt}, with the backoff between
     * them: for a call no caller waits on with one budget, such as a store's first connection, whose first attempt in
     * a new JVM also starts the client's threads and may run late on a loaded machine. A caller's
     * {@link CallDeadline} still cuts it.
     *
     * @param what names the call in error messages
     */
    public <T> T callEachWithin(String what, Duration perAttempt, Classifier classifier, Attempt<T> attempt)
            throws LockManagerException {
        Duration budget = perAttempt.multipliedBy(attempts).plus(maxBackoff.multipliedBy(attempts - 1L));
        long cap = perAttempt.toMillis();
        return run(what, budget, attempts + " attempts of at most " + cap + " ms each", cap, classifier, attempt);
    }

    private <T> T run(String what, Duration budget, String budgetWords, long attemptCapMillis, Classifier classifier,
                      Attempt<T> attempt) throws LockManagerException {
        long start = System.nanoTime();
        long timeoutNanos = budget.toNanos();
        // the caller's deadline (a wait's maxWait) cuts the budget; the first attempt is made all the same, with the
        // least time an attempt can be given, so that a wait's last try is a try
        long budgetNanos = Math.max(CallDeadline.remainingNanos(timeoutNanos), TimeUnit.MILLISECONDS.toNanos(1));
        boolean cut = budgetNanos < timeoutNanos;
        long backoffNanos = initialBackoff.toNanos();
        Exception last = null;
        int failed = 0;
        int broken = 0;
        while (true) {
            long remaining = budgetNanos - (System.nanoTime() - start);
            if (remaining <= 0 && last != null) {
                throw new LockManagerException(ErrorCode.RETRIES_EXHAUSTED, what + " did not succeed within "
                        + (cut ? "the time its caller had left, " + TimeUnit.NANOSECONDS.toMillis(budgetNanos) + " ms"
                        : budgetWords) + " (" + (failed + broken)
                        + " failed attempts); last: " + classifier.describe(last), last);
            }
            try {
                return attempt.run(Math.max(1, Math.min(attemptCapMillis, TimeUnit.NANOSECONDS.toMillis(remaining))));
            } catch (LockManagerException e) {
                throw e;
            } catch (Exception e) {
                if (isInterruption(e)) {
                    Thread.currentThread().interrupt();
                    throw new LockManagerException(ErrorCode.CONNECTION_ERROR, what + " was interrupted", e);
                }
                Failure failure = classifier.classify(e);
                if (failure == Failure.PERMANENT) {
                    throw new LockManagerException(classifier.permanentCode(e), what + " failed: "
                            + classifier.describe(e), e);
                }
                last = e;
                if (failure == Failure.BROKEN_CONNECTION && broken++ < MAX_BROKEN_CONNECTIONS) {
                    continue;
                }
            }
            if (++failed >= attempts) {
                throw new LockManagerException(ErrorCode.RETRIES_EXHAUSTED, what + " failed " + failed + " times; last: "
                        + classifier.describe(last), last);
            }
            long pause = Math.min(backoffNanos, budgetNanos - (System.nanoTime() - start));
            if (pause > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(pause);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new LockManagerException(ErrorCode.CONNECTION_ERROR, what + " was interrupted", e);
                }
            }
            backoffNanos = Math.min(backoffNanos * 2, maxBackoff.toNanos());
        }
    }

    /**
     * Whether {@code failure} is an interrupt of the calling thread: an interrupt anywhere in its cause chain
     * (a socket timeout, though an {@link InterruptedIOException}, is not one), or the thread's flag set.
     */
    public static boolean isInterruption(Throwable failure) {
        if (Thread.currentThread().isInterrupted()) {
            return true;
        }
        Throwable c = failure;
        // bounded: a cause chain may be cyclic
        for (int depth = 0; c != null && depth < 32; depth++, c = c.getCause()) {
            if (c instanceof InterruptedException || c instanceof ClosedByInterruptException
                    || (c instanceof InterruptedIOException && !(c instanceof SocketTimeoutException))) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "RetryPolicy[" + attempts + " attempts, backoff " + initialBackoff + ".." + maxBackoff + "]";
    }
}
