package io.github.lockmanager.store.support;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.TimeSource;
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
import java.util.function.Consumer;

/**
 * A {@link LockStore} that passes every call to another one, for decorators (metrics, tracing, fault injection):
 * override {@link #before} to act on every call, or a single method to change it.
 */
public abstract class ForwardingLockStore implements LockStore {
    private final LockStore delegate;

    protected ForwardingLockStore(LockStore delegate) {
        Require.notNull(delegate, "delegate store");
        this.delegate = delegate;
    }

    protected final LockStore delegate() {
        return delegate;
    }

    /**
     * Called before each call is passed on, {@link #close()} excepted.
     *
     * @param operation the SPI method's name, for example {@code "renew"}
     * @throws LockManagerException to fail the call instead of passing it on
     */
    protected void before(String operation) throws LockManagerException {
    }

    @Override
    public void initialize() throws LockManagerException {
        before("initialize");
        delegate.initialize();
    }

    @Override
    public AcquireResult acquire(LockRequest request, Duration lease) throws LockManagerException {
        before("acquire");
        return delegate.acquire(request, lease);
    }

    @Override
    public Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) throws LockManagerException {
        before("renew");
        return delegate.renew(handles, lease);
    }

    @Override
    public Map<LockHandle, HoldState> check(List<LockHandle> handles) throws LockManagerException {
        before("check");
        return delegate.check(handles);
    }

    @Override
    public boolean release(LockHandle handle) throws LockManagerException {
        before("release");
        return delegate.release(handle);
    }

    @Override
    public Optional<LockRecord> read(LockKey key) throws LockManagerException {
        before("read");
        return delegate.read(key);
    }

    @Override
    public List<LockRecord> list() throws LockManagerException {
        before("list");
        return delegate.list();
    }

    @Override
    public List<LockRecord> inspect(LockKey key) throws LockManagerException {
        before("inspect");
        return delegate.inspect(key);
    }

    @Override
    public boolean markAbort(LockKey key) throws LockManagerException {
        before("markAbort");
        return delegate.markAbort(key);
    }

    @Override
    public int purgeIdleRecords() throws LockManagerException {
        before("purgeIdleRecords");
        return delegate.purgeIdleRecords();
    }

    @Override
    public Runnable watchRelease(LockKey key, Runnable wake) throws LockManagerException {
        before("watchRelease");
        return delegate.watchRelease(key, wake);
    }

    @Override
    public Runnable watchWithdrawals(LockKey requests, Consumer<String> withdrawn) throws LockManagerException {
        before("watchWithdrawals");
        return delegate.watchWithdrawals(requests, withdrawn);
    }

    @Override
    public TimeSource leaseClock() {
        return delegate.leaseClock();
    }

    @Override
    public Duration longestLease() {
        return delegate.longestLease();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + delegate + "]";
    }
}
