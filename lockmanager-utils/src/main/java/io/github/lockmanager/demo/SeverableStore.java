package io.github.lockmanager.demo;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** One demo node's view of the shared store, whose connection the demo can cut as if the node had crashed. */
final class SeverableStore implements LockStore {
    private final LockStore store;
    private volatile boolean severed;

    SeverableStore(LockStore store) {
        this.store = store;
    }

    void sever() {
        severed = true;
    }

    private LockStore reach() throws LockManagerException {
        if (severed) {
            throw new LockManagerException(ErrorCode.CONNECTION_ERROR, "demo: this node is cut off from the store");
        }
        return store;
    }

    @Override
    public void initialize() throws LockManagerException {
        reach().initialize();
    }

    @Override
    public AcquireResult acquire(LockRequest request, Duration lease) throws LockManagerException {
        return reach().acquire(request, lease);
    }

    @Override
    public Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) throws LockManagerException {
        return reach().renew(handles, lease);
    }

    @Override
    public Map<LockHandle, HoldState> check(List<LockHandle> handles) throws LockManagerException {
        return reach().check(handles);
    }

    @Override
    public boolean release(LockHandle handle) throws LockManagerException {
        return reach().release(handle);
    }

    @Override
    public Optional<LockRecord> read(LockKey key) throws LockManagerException {
        return reach().read(key);
    }

    @Override
    public List<LockRecord> list() throws LockManagerException {
        return reach().list();
    }

    @Override
    public boolean markAbort(LockKey key) throws LockManagerException {
        return reach().markAbort(key);
    }

    @Override
    public void close() {
        // the shared store is closed by the demo
    }
}
