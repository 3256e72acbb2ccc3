package io.github.lockmanager.store.support;

import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a store remembers of its own acquisitions that are not plain exclusive records (shared and intention holders
 * kept apart from the key's record: a row of a holders table, a slot of a row), so that renewal, check and release of
 * such a handle go straight to where it is held: a handle carries only its key and owner token.
 *
 * <p>The rules, written once: a holder is remembered when its grant is known ({@link #remember}); forgotten when
 * released ({@link #forget}) and as soon as the store answers that it no longer holds ({@link #forgetLost}), so that
 * the registry never outgrows the live holders and a stale route is never used for a later holder of the same key.
 * Thread-safe; no call blocks.
 *
 * @param <R> how the store reaches a holder (a slot, a table); a store that needs only "is it a holder" uses
 *            {@link Boolean}
 */
public final class HolderRegistry<R> {
    private final Map<LockHandle, R> routes = new ConcurrentHashMap<>();

    /** {@code handle} holds through {@code route} from now on. */
    public void remember(LockHandle handle, R route) {
        routes.put(handle, route);
    }

    /** The route of {@code handle}, or {@code null} if it is not one of the holders this store remembers. */
    public R routeOf(LockHandle handle) {
        return routes.isEmpty() ? null : routes.get(handle);
    }

    /** Whether {@code handle} is a holder this store remembers. */
    public boolean isHolder(LockHandle handle) {
        return routeOf(handle) != null;
    }

    /** Forgets {@code handle}; its route, or {@code null} if it was not remembered. */
    public R forget(LockHandle handle) {
        return routes.isEmpty() ? null : routes.remove(handle);
    }

    /**
     * Forgets every handle that {@code answers} (a renewal's or a check's) says no longer holds, and returns
     * {@code answers} as they are.
     */
    public Map<LockHandle, HoldState> forgetLost(Map<LockHandle, HoldState> answers) {
        if (!routes.isEmpty()) {
            answers.forEach((handle, state) -> {
                if (state == HoldState.LOST) {
                    routes.remove(handle);
                }
            });
        }
        return answers;
    }

    /**
     * The remembered holders of {@code key} with their routes, a copy: a scan of every remembered holder, for a
     * store's rare paths.
     */
    public Map<LockHandle, R> holdersOf(LockKey key) {
        Map<LockHandle, R> found = new HashMap<>();
        routes.forEach((handle, route) -> {
            if (handle.key().equals(key)) {
                found.put(handle, route);
            }
        });
        return found;
    }

    /** How many holders this store remembers. */
    public int size() {
        return routes.size();
    }
}
