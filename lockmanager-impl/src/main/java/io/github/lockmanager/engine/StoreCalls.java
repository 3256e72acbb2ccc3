package io.github.lockmanager.engine;

import io.github.lockmanager.LockManagerException;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Store calls made on callers' threads, and the interrupts this manager sends to holders. A call runs with the
 * caller's interrupt flag set aside, and the flag is set again after if it was set before, or if this manager
 * interrupted the thread during the call (an abort, a loss, shutdown): such an interrupt is the holder's to act on,
 * and some store clients fail at once on a set flag, or clear it and carry on (HBase's does both).
 */
final class StoreCalls {
    @FunctionalInterface
    interface StoreCall<T> {
        T run() throws LockManagerException;
    }

    /** See {@link io.github.lockmanager.spi.LockStore#isInMemory()}: no client that could clear the flag. */
    private final boolean inMemoryStore;
    /** Threads inside a store call, and whether this manager interrupted them during it. */
    private final Map<Thread, Boolean> callers = new ConcurrentHashMap<>();

    StoreCalls(boolean inMemoryStore) {
        this.inMemoryStore = inMemoryStore;
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
