package io.github.lockmanager;

import io.github.lockmanager.internal.RequestNote;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;

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
 * @param order          the request's fencing token; a key's line is ordered by {@code since}, then by this number
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

    /**
     * The waiter whose request the store keeps as {@code record}, a record of a {@linkplain LockKey#isRequests()
     * requests key}: what admin tools that read a store show.
     *
     * @throws IllegalArgumentException if {@code record} is a lock's, not a request's
     */
    public static LockWaiter of(LockRecord record) {
        Require.notNull(record, "record");
        LockKey key = record.key();
        Require.argument(key.isRequests(), "record of %s is a lock's, not a waiter's request", key);
        RequestNote note = RequestNote.read(record.threadName());
        return new LockWaiter(key.name(), key.level(), note.mode(), note.permits(), record.nodeId(), note.owner(),
                record.lockTime(), record.expirationTime(), record.fencingToken());
    }
}
