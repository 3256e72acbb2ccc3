package io.github.lockmanager.bench;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.support.CountingLockStore;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Counts calls, and records when each renew call ran and how many locks it carried. */
final class TimedStore extends CountingLockStore {
    record Span(long startNanos, long endNanos, int locks) {
    }

    private final List<Span> renewals = new ArrayList<>();

    TimedStore(LockStore delegate) {
        super(delegate);
    }

    @Override
    public Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) throws LockManagerException {
        long start = System.nanoTime();
        try {
            return super.renew(handles, lease);
        } finally {
            long end = System.nanoTime();
            synchronized (renewals) {
                renewals.add(new Span(start, end, handles.size()));
            }
        }
    }

    List<Span> renewals() {
        synchronized (renewals) {
            return List.copyOf(renewals);
        }
    }
}
