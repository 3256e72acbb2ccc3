package io.github.lockmanager.spi;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.internal.Require;


/**
 * What {@link LockStore#acquire} writes: the handle of the new acquisition and who takes it.
 *
 * @param handle      the key and this acquisition's unique owner token
 * @param nodeId      the acquiring node
 * @param threadName  the acquiring thread's name
 * @param mode        how the new holder holds the key
 * @param predecessor {@code null}, or the handle of an exclusive record of the same key that the acquiring node
 *                    hands over to this request: the store takes it over in the same write if it is still there,
 *                    and refuses the request if it is not (a hand-off)
 * @param permits     for {@link LockMode#PERMIT}, how many holders the key admits at once (1 to
 *                    {@link io.github.lockmanager.LockManager#MAX_PERMITS}); 0 in every other mode
 */
public record LockRequest(LockHandle handle, String nodeId, String threadName, LockMode mode, LockHandle predecessor,
                          int permits) {
    /**
     * @throws IllegalArgumentException if an argument but {@code predecessor} is null, or {@code predecessor} is of
     *                                  another key, is {@code handle} itself, or goes with a mode other than
     *                                  {@link LockMode#EXCLUSIVE}, or {@code permits} do not go with {@code mode}
     */
    public LockRequest {
        Require.notNull(handle, "handle");
        Require.notNull(nodeId, "nodeId");
        Require.notNull(threadName, "threadName");
        Require.notNull(mode, "mode");
        if (predecessor != null) {
            Require.argument(predecessor.key().equals(handle.key()), "predecessor %s is of another key than %s",
                    predecessor, handle);
            Require.argument(!predecessor.equals(handle), "predecessor must be another acquisition than %s", handle);
            Require.argument(mode == LockMode.EXCLUSIVE, "only an exclusive lock is handed over, not a %s one of %s",
                    mode, handle);
        }
        Require.permits(mode, permits, "request " + handle);
    }

    /** A request in a mode other than {@link LockMode#PERMIT}, taking over {@code predecessor}'s record if not null. */
    public LockRequest(LockHandle handle, String nodeId, String threadName, LockMode mode, LockHandle predecessor) {
        this(handle, nodeId, threadName, mode, predecessor, 0);
    }

    /** A request for one of {@code permits} permits of the handle's key. */
    public static LockRequest permit(LockHandle handle, String nodeId, String threadName, int permits) {
        return new LockRequest(handle, nodeId, threadName, LockMode.PERMIT, null, permits);
    }

    /** A request in {@code mode} that takes over no one's record. */
    public static LockRequest of(LockHandle handle, String nodeId, String threadName, LockMode mode) {
        return new LockRequest(handle, nodeId, threadName, mode, null);
    }

    public LockKey key() {
        return handle.key();
    }
}
