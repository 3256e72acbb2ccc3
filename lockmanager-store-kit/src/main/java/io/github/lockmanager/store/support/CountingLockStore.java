package io.github.lockmanager.store.support;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.spi.LockStore;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the calls made to a store, by SPI operation: how many round trips a workload costs. Thread-safe.
 */
public class CountingLockStore extends ForwardingLockStore {
    private final Map<String, AtomicLong> calls = new ConcurrentHashMap<>();

    public CountingLockStore(LockStore delegate) {
        super(delegate);
    }

    @Override
    protected void before(String operation) throws LockManagerException {
        calls.computeIfAbsent(operation, k -> new AtomicLong()).incrementAndGet();
    }

    /** How many times {@code operation} (an SPI method name, for example {@code "renew"}) was called. */
    public long calls(String operation) {
        AtomicLong n = calls.get(operation);
        return n == null ? 0 : n.get();
    }

    /** All calls of every operation. */
    public long totalCalls() {
        return calls.values().stream().mapToLong(AtomicLong::get).sum();
    }
}
