package io.github.lockmanager.engine;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.TimeSource;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every store call of the engine, and the interrupts this manager sends to holders. Calls on callers' threads run
 * with the caller's interrupt flag set aside, and the flag is set again after if it was set before, or if this manager
 * interrupted the thread during the call (an abort, a loss, shutdown): such an interrupt is the holder's to act on,
 * and some store clients fail at once on a set flag, or clear it and carry on (HBase's does both).
 */
final class StoreCalls {
    @FunctionalInterface
    interface StoreCall<T> {
        T run() throws LockManagerException;
    }

    private final LockStore store;
    /** See {@link LockStore#isInMemory()}: no client that could clear the flag. */
    private final boolean inMemoryStore;
    /** Whether the manager's clock is the store's lease clock, so that a reading of it can go with a request. */
    private final boolean sharesLeaseClock;
    /** Threads inside a store call, and whether this manager interrupted them during it. */
    private final Map<Thread, Boolean> callers = new ConcurrentHashMap<>();

    StoreCalls(LockStore store, TimeSource managerClock) {
        this.store = store;
        this.inMemoryStore = store.isInMemory();
        this.sharesLeaseClock = store.leaseClock() == managerClock;
    }

    /*
     * acquire and release, which every new lock makes, call an in-memory store without the lambda run() takes: run's
     * one call site sees every kind of call and does not inline them, so each lambda was allocated (a fresh in-memory
     * lock+unlock allocated 440 bytes under JMH's GC profiler, 384 without them)
     */

    /** {@link LockStore#acquire} of {@code request}, sent at {@code sentAtNanos} of the manager's clock. */
    AcquireResult acquire(LockRequest request, Duration lease, long sentAtNanos) throws LockManagerException {
        return inMemoryStore ? acquireNow(request, lease, sentAtNanos)
                : run(() -> acquireNow(request, lease, sentAtNanos));
    }

    private AcquireResult acquireNow(LockRequest request, Duration lease, long sentAtNanos)
            throws LockManagerException {
        return sharesLeaseClock ? store.acquire(request, lease, sentAtNanos) : store.acquire(request, lease);
    }

    /** {@link LockStore#release} of {@code handle}. */
    boolean release(LockHandle handle) throws LockManagerException {
        return inMemoryStore ? store.release(handle) : run(() -> store.release(handle));
    }

    /** {@link LockStore#renew} of a batch, on the keeper's thread. */
    Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) throws LockManagerException {
        return store.renew(handles, lease);
    }

    /** {@link LockStore#check} of a batch, on the keeper's thread. */
    Map<LockHandle, HoldState> check(List<LockHandle> handles) throws LockManagerException {
        return store.check(handles);
    }

    /** {@link LockStore#purgeIdleRecords}, on the keeper's thread. */
    int purge() throws LockManagerException {
        return store.purgeIdleRecords();
    }

    <T> T run(StoreCall<T> call) throws LockManagerException {
        if (inMemoryStore) {
            return call.run();
        }
        Thread me = Thread.currentThread();
        boolean interrupted = Thread.interrupted();
        callers.put(me, Boolean.FALSE);
        try {
            return call.run();
        } finally {
            if (Boolean.TRUE.equals(callers.remove(me)) || interrupted) {
                me.interrupt();
            }
        }
    }

    /** Interrupts a holder, noting it for {@link #run} if the holder is inside a store call. */
    void interrupt(Thread holder) {
        callers.computeIfPresent(holder, (thread, interrupted) -> Boolean.TRUE);
        holder.interrupt();
    }
}
