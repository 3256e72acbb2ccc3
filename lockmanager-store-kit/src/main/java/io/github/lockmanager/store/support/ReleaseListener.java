package io.github.lockmanager.store.support;

import io.github.lockmanager.LockManagerException;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * The base of a store's listener for releases its server announces (PostgreSQL's {@code NOTIFY}, Redis' pub/sub):
 * the store's {@code watchRelease} goes through {@link #watch}, which first
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
     * waits for the listener to start. An interrupt during that start is kept in the
     * caller's flag, and the caller polls instead.
     *
     * @return what cancels the watch, or {@code null} if the listener is not listening
     */
    public final Runnable watch(String key, Runnable wake, ReleaseWaiters.Mark mark) throws LockManagerException {
        return started() ? waiters.watch(key, wake, mark) : null;
    }

    /**
     * Tells {@code withdrawn} each withdrawal announced from the line {@code key} ({@link ReleaseWaiters#watchWithdrawals});
     * the first call waits for the listener to start, as {@link #watch} does.
     *
     * @return what cancels the watch, or {@code null} if the listener is not listening
     */
    public final Runnable watchWithdrawals(String key, Consumer<String> withdrawn) {
        return started() ? waiters.watchWithdrawals(key, withdrawn) : null;
    }

    /** Whether the listener listens, waiting for its start; an interrupt is kept in the caller's flag ({@code false}). */
    private boolean started() {
        try {
            return listening(START_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
