package io.github.lockmanager.testing.support;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.support.CountingLockStore;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Wraps a real store for tests: counts every call by operation, and injects the faults a real store cannot
 * produce on demand (unreachable, renewal answered "lost", an acquire that applies but reports a timeout).
 * Each node of a test gets its own instance around the one shared store.
 */
public final class InstrumentedStore extends CountingLockStore {
    private final List<Integer> renewBatchSizes = new CopyOnWriteArrayList<>();
    private final List<Integer> checkBatchSizes = new CopyOnWriteArrayList<>();
    private volatile boolean unreachable;
    private volatile boolean renewalsLost;
    private volatile boolean nextAcquireAmbiguous;
    private volatile Duration acquireAnswerDelay = Duration.ZERO;
    private final AtomicLong lockWatches = new AtomicLong();

    public InstrumentedStore(LockStore store) {
        super(store);
    }

    @Override
    protected void before(String operation) throws LockManagerException {
        super.before(operation);
        if (unreachable) {
            throw new LockManagerException(ErrorCode.CONNECTION_ERROR, "test: store unreachable (" + operation + ")");
        }
    }

    /** Counts watches of a lock's own key apart from those of its line of requests ({@link #lockWatches}). */
    @Override
    public Runnable watchRelease(LockKey key, Runnable wake) throws LockManagerException {
        if (!key.isRequests()) {
            lockWatches.incrementAndGet();
        }
        return super.watchRelease(key, wake);
    }

    /** How many times a waiter watched a lock's key for its release (its line of requests not counted). */
    public long lockWatches() {
        return lockWatches.get();
    }

    @Override
    public AcquireResult acquire(LockRequest request, Duration lease) throws LockManagerException {
        AcquireResult result = super.acquire(request, lease);
        if (!acquireAnswerDelay.isZero()) {
            try {
                Thread.sleep(acquireAnswerDelay.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LockManagerException(ErrorCode.CONNECTION_ERROR, "test: interrupted while delaying", e);
            }
        }
        if (nextAcquireAmbiguous) {
            nextAcquireAmbiguous = false;
            throw new LockManagerException(ErrorCode.CONNECTION_ERROR, "test: acquire applied but its answer was lost");
        }
        return result;
    }

    @Override
    public Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) throws LockManagerException {
        renewBatchSizes.add(handles.size());
        Map<LockHandle, HoldState> answers = super.renew(handles, lease);
        if (!renewalsLost) {
            return answers;
        }
        Map<LockHandle, HoldState> lost = new LinkedHashMap<>();
        handles.forEach(h -> lost.put(h, HoldState.LOST));
        return lost;
    }

    @Override
    public Map<LockHandle, HoldState> check(List<LockHandle> handles) throws LockManagerException {
        checkBatchSizes.add(handles.size());
        return super.check(handles);
    }

    /** How many locks each check (abort poll) call carried, in call order. */
    public List<Integer> checkBatchSizes() {
        return List.copyOf(checkBatchSizes);
    }

    /** How many locks each renew call carried, in call order. */
    public List<Integer> renewBatchSizes() {
        return List.copyOf(renewBatchSizes);
    }

    public void setUnreachable(boolean unreachable) {
        this.unreachable = unreachable;
    }

    /** Makes every renewal answer {@link HoldState#LOST} (after really renewing), as a store that lost the record. */
    public void setRenewalsLost(boolean renewalsLost) {
        this.renewalsLost = renewalsLost;
    }

    /** Every acquire is applied by the real store, and its answer arrives {@code delay} later, as over a slow network. */
    public void delayAcquireAnswers(Duration delay) {
        this.acquireAnswerDelay = delay;
    }

    /** The next acquire is applied by the real store, and then reported as a connection error. */
    public void makeNextAcquireAmbiguous() {
        this.nextAcquireAmbiguous = true;
    }
}
