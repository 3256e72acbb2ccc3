package io.github.lockmanager.store.cassandra;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The state cell of each key this store wrote or read last, so that its next change of the key is one compare-and-set
 * conditional on it rather than a read and a write. Only a guess: a change decided on it that fails answers the cell's
 * real value. Bounded, the least recently used key leaving first. Thread-safe; the monitor is held for the map only.
 */
final class KnownStates {
    /** Keys remembered at most: far more than one node holds at once in the uses this store is made for. */
    static final int CAPACITY = 10_000;

    /** A cell as the store holds it, and what it says. */
    record Known(ByteBuffer cell, KeyState state) {
    }

    private final Map<String, Known> byKey;

    KnownStates(int capacity) {
        this.byKey = new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Known> eldest) {
                return size() > capacity;
            }
        };
    }

    synchronized Known get(String storageKey) {
        return byKey.get(storageKey);
    }

    /** Remembers {@code cell} ({@code null}: the key has no state) as {@code storageKey}'s; a copy of it is kept. */
    void put(String storageKey, ByteBuffer cell, KeyState state) {
        Known known = new Known(cell == null ? null : copy(cell), state);
        synchronized (this) {
            byKey.put(storageKey, known);
        }
    }

    synchronized int size() {
        return byKey.size();
    }

    private static ByteBuffer copy(ByteBuffer cell) {
        ByteBuffer copy = ByteBuffer.allocate(cell.remaining());
        copy.put(cell.duplicate()).flip();
        return copy;
    }
}
