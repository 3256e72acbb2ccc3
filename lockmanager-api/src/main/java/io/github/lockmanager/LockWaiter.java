package io.github.lockmanager;

import io.github.lockmanager.internal.Require;

import java.time.Instant;

/**
 * A waiter's request for a lock, as the store keeps it while the waiter waits ({@link LockSpec#fair fair} waits
 * register one): who waits for which key, in which mode, from which node, since when. Immutable.
 *
 * @param key            the key waited for, as the caller gave it (for a path, the whole path)
 * @param level          its level
 * @param mode           the mode asked for; {@link LockMode#PERMIT} with {@code permits}
 * @param permits        the number of permits asked for, 0 in other modes
 * @param nodeId         the waiting node
 * @param ownerName      the waiting thread's name, or {@code task:<name>} for a task
 * @param since          when the request was registered (the store's notion of time)
 * @param expirationTime when the request ends unless its node renews it: a dead waiter's request goes with its lease
 * @param order          its place in the key's line: a later request of the key has a larger number
 */
public record LockWaiter(String key, LockLevel level, LockMode mode, int permits, String nodeId, String ownerName,
                         Instant since, Instant expirationTime, long order) {
    public LockWaiter {
        Require.notNull(key, "key");
        Require.notNull(level, "level");
        Require.notNull(mode, "mode");
        Require.notNull(nodeId, "nodeId");
        Require.notNull(ownerName, "ownerName");
        Require.notNull(since, "since");
        Require.notNull(expirationTime, "expirationTime");
    }
}
