package io.github.lockmanager.store.support;

import io.github.lockmanager.LockManagerException;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The threads of a store that wait for a key's release to be announced by the server (PostgreSQL's {@code NOTIFY},
 * Redis' pub/sub), and their wake-up, written once: a waiter is registered before it makes itself known to the releasers, so that a release that sees it
 * always finds it here; the store's listener wakes a key's waiters by its name, or all of them when it stops hearing. Thread-safe; nothing here blocks.
 */
public final class ReleaseWaiters {
    /** Makes a waiter known to the releasers: {@code false} if the key is not held (so there is nothing to wait for). */
    @FunctionalInterface
    public interface Mark {
        boolean mark() throws LockManagerException;
    }

    private final ConcurrentHashMap<String, Set<Runnable>> waiters = new ConcurrentHashMap<>();
    /** Those that watch a line's withdrawals, by the line's key; copy-on-write, as it is read far more than changed. */
    private final ConcurrentHashMap<String, Set<Consumer<String>>> lines = new ConcurrentHashMap<>();

    /**
     * Runs {@code wake} once, on the listener's thread, when a release of {@code key} is announced or the listener
     * stops hearing, once {@code mark} has made this waiter known; at once, on this thread, if {@code mark} says no.
     *
     * @return what cancels the watch ({@code wake} may still run once after it)
     */
    public Runnable watch(String key, Runnable wake, Mark mark) throws LockManagerException {
        Runnable once = new Runnable() {
            private final AtomicBoolean ran = new AtomicBoolean();

            @Override
            public void run() {
                if (ran.compareAndSet(false, true)) {
                    wake.run();
                }
            }
        };
        add(key, once);
        boolean marked;
        try {
            marked = mark.mark();
        } catch (LockManagerException | RuntimeException e) {
            remove(key, once);
            throw e;
        }
        if (!marked) {
            remove(key, once);
            once.run();
        }
        return () -> remove(key, once);
    }

    private void add(String key, Runnable wake) {
        waiters.compute(key, (k, all) -> {
            Set<Runnable> set = all != null ? all : new HashSet<>();
            set.add(wake);
            return set;
        });
    }

    private void remove(String key, Runnable wake) {
        waiters.computeIfPresent(key, (k, all) -> {
            all.remove(wake);
            return all.isEmpty() ? null : all;
        });
    }

    /**
     * Tells {@code withdrawn} the owner token of each withdrawal announced from the line {@code key} until the returned
     * cancel runs ({@link #withdrawn}); {@code null} once, ending the watch, when the listener stops hearing.
     */
    public Runnable watchWithdrawals(String key, Consumer<String> withdrawn) {
        lines.compute(key, (k, all) -> {
            Set<Consumer<String>> set = all != null ? all : new CopyOnWriteArraySet<>();
            set.add(withdrawn);
            return set;
        });
        return () -> lines.computeIfPresent(key, (k, all) -> {
            all.remove(withdrawn);
            return all.isEmpty() ? null : all;
        });
    }

    /**
     * A request whose owner token is {@code ownerToken} was withdrawn from the line {@code key}: wakes the line's
     * waiters ({@link #wake}) and tells those that watch its withdrawals.
     */
    public void withdrawn(String key, String ownerToken) {
        wake(key);
        Set<Consumer<String>> watching = lines.get(key);
        if (watching != null) {
            watching.forEach(watcher -> watcher.accept(ownerToken));
        }
    }

    /** Wakes every waiter of {@code key}. */
    public void wake(String key) {
        Set<Runnable> woken = waiters.remove(key);
        if (woken != null) {
            woken.forEach(Runnable::run);
        }
    }

    /** Wakes every waiter of every key: the listener stopped hearing, and they poll. */
    public void wakeAll() {
        for (String key : waiters.keySet()) {
            wake(key);
        }
        for (String key : lines.keySet()) {
            Set<Consumer<String>> ended = lines.remove(key);
            if (ended != null) {
                ended.forEach(watcher -> watcher.accept(null));
            }
        }
    }
}
