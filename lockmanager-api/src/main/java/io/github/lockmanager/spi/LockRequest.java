package io.github.lockmanager.spi;

import io.github.lockmanager.Require;


/**
 * What {@link LockStore#acquire} writes: the handle of the new acquisition and who takes it.
 *
 * @param handle     the key and this acquisition's unique owner token
 * @param nodeId     the acquiring node
 * @param threadName the acquiring thread's name
 */
public record LockRequest(LockHandle handle, String nodeId, String threadName) {
    public LockRequest {
        Require.notNull(handle, "handle");
        Require.notNull(nodeId, "nodeId");
        Require.notNull(threadName, "threadName");
    }

    public LockKey key() {
        return handle.key();
    }
}
