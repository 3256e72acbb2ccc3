package io.github.lockmanager.demo;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.support.ForwardingLockStore;

/** One demo node's view of the shared store, whose connection the demo can cut as if the node had crashed. */
final class SeverableStore extends ForwardingLockStore {
    private volatile boolean severed;

    SeverableStore(LockStore store) {
        super(store);
    }

    void sever() {
        severed = true;
    }

    @Override
    protected void before(String operation) throws LockManagerException {
        if (severed) {
            throw new LockManagerException(ErrorCode.CONNECTION_ERROR, "demo: this node is cut off from the store");
        }
    }

    @Override
    public void close() {
        // the shared store is closed by the demo
    }
}
