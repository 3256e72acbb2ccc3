package io.github.lockmanager.spi;

import java.util.Objects;

/**
 * What {@link LockStore#acquire} writes: the handle of the new acquisition and who takes it.
 *
 * @param handle     the key and this acquisition's unique owner token
 * @param nodeId     the acquiring node
 * @param threadName the acquiring thread's name
 */
public record LockRequest(LockHandle handle, String nodeId, String threadName) {
    public LockRequest {
        Objects.requireNonNull(handle, "handle");
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(threadName, "threadName");
    }

    public LockKey key() {
        return handle.key();
    }
}
