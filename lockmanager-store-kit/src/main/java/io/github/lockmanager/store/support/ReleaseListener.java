package io.github.lockmanager.store.support;

import io.github.lockmanager.LockManagerException;

import java.time.Duration;

/**
 * The base of a store's listener for releases its server announces (PostgreSQL's {@code NOTIFY}, Redis' pub/sub):
 * the store's {@code awaitRelease} and {@code watchRelease} go through {@link #await} and {@link #watch}, which first
 * make sure the listener listens ({@link #listening}), then register the waiter in {@link #waiters()}. A subclass
 * says how it starts listening, and calls {@code waiters().wake(key)} for each announcement it hears and
 * {@code waiters().wakeAll()} when it stops hearing. Thread-safe as its subclass's {@link #listening} is.
 */
public abstract class ReleaseListener {
    /** How long a waiter waits for the listener to start listening, at most: connecting takes a round trip or two. */
    protected static final long START_MILLIS = 2000;

    private final ReleaseWaiters waiters = new ReleaseWaiters();

    /** The waiters this listener wakes. */
    protected final ReleaseWaiters waiters() {
        return waiters;
    }

    /**
     * Whether the listener listens, starting it if it does not, and waiting for it at most {@code millis}.
     *
     * @throws InterruptedException if the calling thread was interrupted while waiting for the start
     */
    protected abstract boolean listening(long millis) throws InterruptedException;

    /**
     * Runs {@code wake} at the next announced release of {@code key} ({@link ReleaseWaiters#watch}); the first call
     * waits for the listener to start, as a first {@link #await} does. An interrupt during that start is kept in the
     * caller's flag, and the caller polls instead.
     *
     * @return what cancels the watch, or {@code null} if the listener is not listening
     */
    public final Runnable watch(String key, Runnable wake, ReleaseWaiters.Mark mark) throws LockManagerException {
        try {
            if (!listening(START_MILLIS)) {
                return null;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
        return waiters.watch(key, wake, mark);
    }

    /**
     * Waits for a release of {@code key} for at most {@code timeout}, once {@code mark} has made this waiter known.
     *
     * @return {@code true} if this call waited; {@code false} at once if it could not listen or {@code mark} said no
     * @throws InterruptedException if the calling thread was interrupted while waiting
     */
    public final boolean await(String key, Duration timeout, ReleaseWaiters.Mark mark)
            throws LockManagerException, InterruptedException {
        if (!listening(Math.min(timeout.toMillis(), START_MILLIS))) {
            return false;
        }
        return waiters.await(key, timeout, mark);
    }
}
