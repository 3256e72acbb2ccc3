package io.github.lockmanager.store.support;

import io.github.lockmanager.LockManagerException;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The threads of a store that wait for a key's release to be announced by the server (PostgreSQL's {@code NOTIFY},
 * Redis' pub/sub), and their wake-up, written once: a waiter is registered before it makes itself known to the
 * releasers, so that a release that sees it always finds it here; the store's listener wakes a key's waiters by its
 * name, or all of them when it stops hearing. Thread-safe; only {@link #await} blocks.
 */
public final class ReleaseWaiters {
    /** Makes a waiter known to the releasers: {@code false} if the key is not held (so there is nothing to wait for). */
    @FunctionalInterface
    public interface Mark {
        boolean mark() throws LockManagerException;
    }

    private final ConcurrentHashMap<String, Set<CountDownLatch>> waiters = new ConcurrentHashMap<>();

    /**
     * Waits for a release of {@code key} for at most {@code timeout}, once {@code mark} has made this waiter known.
     *
     * @return {@code true} if this call waited (woken or not); {@code false} at once if {@code mark} said no
     * @throws InterruptedException if the calling thread was interrupted while waiting
     */
    public boolean await(String key, Duration timeout, Mark mark) throws LockManagerException, InterruptedException {
        CountDownLatch woken = new CountDownLatch(1);
        waiters.compute(key, (k, latches) -> {
            Set<CountDownLatch> all = latches != null ? latches : new HashSet<>();
            all.add(woken);
            return all;
        });
        try {
            if (!mark.mark()) {
                return false;
            }
            woken.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } finally {
            waiters.computeIfPresent(key, (k, latches) -> {
                latches.remove(woken);
                return latches.isEmpty() ? null : latches;
            });
        }
    }

    /** Wakes every waiter of {@code key}. */
    public void wake(String key) {
        Set<CountDownLatch> woken = waiters.remove(key);
        if (woken != null) {
            woken.forEach(CountDownLatch::countDown);
        }
    }

    /** Wakes every waiter of every key: the listener stopped hearing, and they poll. */
    public void wakeAll() {
        for (String key : waiters.keySet()) {
            wake(key);
        }
    }
}
