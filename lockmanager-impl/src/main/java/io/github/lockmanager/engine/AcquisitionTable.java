package io.github.lockmanager.engine;

import io.github.lockmanager.LockLevel;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This node's acquisitions, one map per level keyed by the caller's key: farm and client are fixed per manager, so
 * a lookup needs no composite key object (a re-entry allocates nothing and hashes a string whose hash is cached),
 * and a held lock costs no key object of its own here.
 */
final class AcquisitionTable {
    private final List<ConcurrentHashMap<String, Acquisition>> byLevel = new ArrayList<>();

    AcquisitionTable() {
        for (int i = 0; i < LockLevel.values().length; i++) {
            byLevel.add(new ConcurrentHashMap<>());
        }
    }

    Acquisition get(LockLevel level, String name) {
        return byLevel.get(level.ordinal()).get(name);
    }

    /** Adds {@code acquisition} under its key unless one is there; the one already there, else {@code null}. */
    Acquisition putIfAbsent(Acquisition acquisition) {
        return byLevel.get(acquisition.key().level().ordinal()).putIfAbsent(acquisition.key().name(), acquisition);
    }

    /** Removes {@code acquisition} if it is still the entry of its key. */
    void remove(Acquisition acquisition) {
        byLevel.get(acquisition.key().level().ordinal()).remove(acquisition.key().name(), acquisition);
    }

    /** Takes an ended acquisition out of the table and wakes whoever waits for it to be gone. */
    void retire(Acquisition acquisition) {
        remove(acquisition);
        acquisition.markGone();
    }

    /** The acquisitions currently held, in no particular order. */
    List<Acquisition> held() {
        List<Acquisition> held = new ArrayList<>(size());
        for (ConcurrentHashMap<String, Acquisition> level : byLevel) {
            for (Acquisition acquisition : level.values()) {
                if (acquisition.isHeld()) {
                    held.add(acquisition);
                }
            }
        }
        return held;
    }

    int size() {
        int size = 0;
        for (ConcurrentHashMap<String, Acquisition> level : byLevel) {
            size += level.size();
        }
        return size;
    }
}
