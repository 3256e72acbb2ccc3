package io.github.lockmanager.store.support;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Bounded retries with exponential backoff for a store's transient failures. A failure the store calls
 * permanent ends the call at once with {@code CONNECTION_ERROR}; a transient one is retried up to the
 * attempt limit and then reported as {@code RETRIES_EXHAUSTED}. An interrupt ends the call at once, with the
 * thread's interrupt flag set.
 */
public final class RetryPolicy {
    /** One try at a store call. */
    @FunctionalInterface
    public interface Attempt<T> {
        T run() throws Exception;
    }

    /** Tells the failures worth retrying from those that will fail again. */
    @FunctionalInterface
    public interface Classifier {
        boolean isTransient(Exception failure);
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
                || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("backoff must be 0 <= initial (" + initialBackoff + ") <= max ("
                    + maxBackoff + ")");
        }
        this.attempts = attempts;
        this.initialBackoff = initialBackoff;
        this.maxBackoff = maxBackoff;
    }

    public int attempts() {
        return attempts;
    }

    /**
     * Runs {@code attempt} until it succeeds, fails permanently, or has failed {@link #attempts()} times.
     *
     * @param what names the call in error messages, for example {@code "acquire lock 'x'"}
     */
    public <T> T call(String what, Classifier classifier, Attempt<T> attempt) throws LockManagerException {
        long backoffNanos = initialBackoff.toNanos();
        Exception last = null;
        for (int tried = 1; tried <= attempts; tried++) {
            try {
                return attempt.run();
            } catch (LockManagerException e) {
                throw e;
            } catch (Exception e) {
                if (isInterrupt(e)) {
                    Thread.currentThread().interrupt();
                    throw new LockManagerException(ErrorCode.CONNECTION_ERROR, what + " was interrupted", e);
                }
                if (!classifier.isTransient(e)) {
                    throw new LockManagerException(ErrorCode.CONNECTION_ERROR, what + " failed: " + e, e);
                }
                last = e;
            }
            if (tried < attempts) {
                try {
                    TimeUnit.NANOSECONDS.sleep(backoffNanos);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new LockManagerException(ErrorCode.CONNECTION_ERROR, what + " was interrupted", e);
                }
                backoffNanos = Math.min(backoffNanos * 2, maxBackoff.toNanos());
            }
        }
        throw new LockManagerException(ErrorCode.RETRIES_EXHAUSTED, what + " failed " + attempts + " times; last: "
                + last, last);
    }

    private static boolean isInterrupt(Exception e) {
        return e instanceof InterruptedException || e instanceof java.io.InterruptedIOException
                && !(e instanceof java.net.SocketTimeoutException);
    }

    @Override
    public String toString() {
        return "RetryPolicy[" + attempts + " attempts, backoff " + initialBackoff + ".." + maxBackoff + "]";
    }
}
