package io.github.lockmanager.bench;

import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.memory.InMemoryLockStore;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

final class InMemorySubject implements Subject {
    private final InMemoryLockStore store = new InMemoryLockStore();
    private final Map<String, String> raw = new ConcurrentHashMap<>();
    private final Map<String, Set<String>> rawShared = new ConcurrentHashMap<>();

    @Override
    public String name() {
        return "in-memory";
    }

    @Override
    public LockStore store() {
        return store;
    }

    @Override
    public String rawCycleDescription() {
        return "ConcurrentHashMap putIfAbsent + remove(key, owner)";
    }

    @Override
    public void rawCycle(String key, String owner) {
        raw.putIfAbsent(key, owner);
        raw.remove(key, owner);
    }

    @Override
    public String rawSharedCycleDescription() {
        return "ConcurrentHashMap containsKey (no exclusive owner) + a holder set's add + remove";
    }

    @Override
    public void rawSharedCycle(String key, String owner) {
        if (!raw.containsKey(key)) {
            Set<String> holders = rawShared.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet());
            holders.add(owner);
            holders.remove(owner);
        }
    }

    @Override
    public long rawScan() {
        return store.list().size();
    }

    @Override
    public int listSize(Settings settings) {
        return settings.listSize();
    }

    @Override
    public void close() {
        store.close();
    }
}
