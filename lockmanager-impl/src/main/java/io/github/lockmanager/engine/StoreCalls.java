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
 * Every store call of the engine, and the interrupts this manager sends to holders, with what guards them: a
 * store across a network has calls on callers' threads run with the caller's interrupt flag set aside (an interrupt
 * this manager sends during the call, an abort, a loss, shutdown, is the holder's to act on, and set again after)
 * and its answers timed against the lease; a store in this JVM's memory needs none of it. Which of the two a store
 * gets is decided once, here ({@link #of}), so no other part of the engine asks.
 */
abstract class StoreCalls {
    @FunctionalInterface
    interface StoreCall<T> {
        T run() throws LockManagerException;
    }

    final LockStore store;
    final TimeSource time;
    /** Whether the manager's clock is the store's lease clock, so that a reading of it can go with a request. */
    private final boolean sharesLeaseClock;

    private StoreCalls(LockStore store, TimeSource managerClock) {
        this.store = store;
        this.time = managerClock;
        this.sharesLeaseClock = store.leaseClock() == managerClock;
    }

    /**
     * The calls of {@code store}: guarded as calls across a network, unless the store says every call is a plain
     * operation on this JVM's memory ({@link LockStore#isInMemory()}), which such guards would cost more than. The one
     * place the engine asks.
     */
    static StoreCalls of(LockStore store, TimeSource managerClock) {
        return store.isInMemory() ? new Direct(store, managerClock) : new Guarded(store, managerClock);
    }

    /** {@link LockStore#acquire} of {@code request}, sent at {@code sentAtNanos} of the manager's clock. */
    abstract AcquireResult acquire(LockRequest request, Duration lease, long sentAtNanos) throws LockManagerException;

    final AcquireResult acquireNow(LockRequest request, Duration lease, long sentAtNanos)
            throws LockManagerException {
        return sharesLeaseClock ? store.acquire(request, lease, sentAtNanos) : store.acquire(request, lease);
    }

    /** {@link LockStore#release} of {@code handle}. */
    abstract boolean release(LockHandle handle) throws LockManagerException;

    /** Runs a call on the caller's thread. */
    abstract <T> T run(StoreCall<T> call) throws LockManagerException;

    /** How long the answer to a call sent at {@code sentAtNanos} took, to hold against the lease it grants. */
    abstract long tookSince(long sentAtNanos);

    /**
     * Whether a lock whose lease is known until {@code confirmedUntilNanos} may have outlived it, so that its release
     * must tell its holder of a loss rather than trust the store's answer alone.
     */
    abstract boolean mayHaveOutlived(LeasePolicy leases, long confirmedUntilNanos);

    /** {@link LockStore#renew} of a batch, on the keeper's thread. */
    final Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) throws LockManagerException {
        return store.renew(handles, lease);
    }

    /** {@link LockStore#check} of a batch, on the keeper's thread. */
    final Map<LockHandle, HoldState> check(List<LockHandle> handles) throws LockManagerException {
        return store.check(handles);
    }

    /** {@link LockStore#purgeIdleRecords}, on the keeper's thread. */
    final int purge() throws LockManagerException {
        return store.purgeIdleRecords();
    }

    /** Interrupts a holder, noting it if the holder is inside a store call. */
    abstract void interrupt(Thread holder);

    /**
     * A store with a server: a call on a caller's thread runs with the interrupt flag set aside (some clients fail at
     * once on a set flag, or clear it and carry on, as HBase's does both), set again after if it was set before or if
     * this manager interrupted the thread during the call; an answer is timed against the lease it grants.
     */
    private static final class Guarded extends StoreCalls {
        /** Threads inside a store call, and whether this manager interrupted them during it. */
        private final Map<Thread, Boolean> callers = new ConcurrentHashMap<>();

        Guarded(LockStore store, TimeSource managerClock) {
            super(store, managerClock);
        }

        @Override
        AcquireResult acquire(LockRequest request, Duration lease, long sentAtNanos) throws LockManagerException {
            return run(() -> acquireNow(request, lease, sentAtNanos));
        }

        @Override
        boolean release(LockHandle handle) throws LockManagerException {
            return run(() -> store.release(handle));
        }

        @Override
        <T> T run(StoreCall<T> call) throws LockManagerException {
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

        @Override
        long tookSince(long sentAtNanos) {
            return time.nanoTime() - sentAtNanos;
        }

        @Override
        boolean mayHaveOutlived(LeasePolicy leases, long confirmedUntilNanos) {
            return leases.atRisk(confirmedUntilNanos, time.nanoTime());
        }

        @Override
        void interrupt(Thread holder) {
            callers.computeIfPresent(holder, (thread, interrupted) -> Boolean.TRUE);
            holder.interrupt();
        }
    }

    /**
     * A store in this JVM's memory: nothing to guard. Its calls never block and never look at the interrupt flag, its
     * answer takes no time worth a clock reading, and its release answers for the lease itself. acquire and release,
     * which every new lock makes, call it without the lambda {@code run} takes: run's one call site sees every kind of
     * call and does not inline them, so each lambda was allocated (a fresh in-memory lock+unlock allocated 440 bytes
     * under JMH's GC profiler, 384 without them).
     */
    private static final class Direct extends StoreCalls {
        Direct(LockStore store, TimeSource managerClock) {
            super(store, managerClock);
        }

        @Override
        AcquireResult acquire(LockRequest request, Duration lease, long sentAtNanos) throws LockManagerException {
            return acquireNow(request, lease, sentAtNanos);
        }

        @Override
        boolean release(LockHandle handle) throws LockManagerException {
            return store.release(handle);
        }

        @Override
        <T> T run(StoreCall<T> call) throws LockManagerException {
            return call.run();
        }

        @Override
        long tookSince(long sentAtNanos) {
            return 0;
        }

        @Override
        boolean mayHaveOutlived(LeasePolicy leases, long confirmedUntilNanos) {
            return false;
        }

        @Override
        void interrupt(Thread holder) {
            holder.interrupt();
        }
    }
}
