package io.github.lockmanager.spi;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.Require;


/**
 * What {@link LockStore#acquire} writes: the handle of the new acquisition and who takes it.
 *
 * @param handle     the key and this acquisition's unique owner token
 * @param nodeId     the acquiring node
 * @param threadName the acquiring thread's name
 * @param mode       how the new holder holds the key; a store without {@link LockStore#supportsModes()} is only
 *                   asked for {@link LockMode#EXCLUSIVE}
 */
public record LockRequest(LockHandle handle, String nodeId, String threadName, LockMode mode) {
    public LockRequest {
        Require.notNull(handle, "handle");
        Require.notNull(nodeId, "nodeId");
        Require.notNull(threadName, "threadName");
        Require.notNull(mode, "mode");
    }

    /** An {@link LockMode#EXCLUSIVE} request. */
    public LockRequest(LockHandle handle, String nodeId, String threadName) {
        this(handle, nodeId, threadName, LockMode.EXCLUSIVE);
    }

    public LockKey key() {
        return handle.key();
    }
}
