package io.github.lockmanager.engine;

import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.LockKey;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * This node's acquisitions. Exclusive ones, at most one per key, sit in one map per level keyed by the caller's
 * key: farm and client are fixed per manager, so a lookup needs no composite key object (a re-entry allocates
 * nothing and hashes a string whose hash is cached), and a held lock costs no key object of its own here. The
 * other modes, which many threads may hold on one key, sit in a second map keyed by key, owner and mode.
 */
final class AcquisitionTable {
    /**
     * One map per level as a field of its own, not a list of them: a re-entry and its unlock each walk from the
     * manager to the acquisition through dependent loads, and a list would add two to each walk.
     */
    private final ConcurrentHashMap<String, Acquisition> dc = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Acquisition> xdc = new ConcurrentHashMap<>();
    /**
     * Sized so that the places of one key's readers land on bins a cache line or more apart: a place's hash moves by
     * 31 with its thread's id, and in a map's first table of 16 bins the bins of 8 readers of one key shared one or
     * two cache lines, which every join and leave wrote (8 readers of one key in memory ran at a median 0.74 of 8
     * exclusive lockers of distinct keys, at 0.94 with this, in alternated runs). Its table, 4 KiB, is made at the
     * first non-exclusive hold.
     */
    private final ConcurrentHashMap<Place, Acquisition> byMode = new ConcurrentHashMap<>(512);
    /**
     * The acquisitions lent to guarded work, with how many guards each has open: a map beside the table rather than a
     * field of each acquisition, since few locks are ever guarded and every held lock would pay for the field.
     */
    private final ConcurrentHashMap<Acquisition, Integer> guarded = new ConcurrentHashMap<>();
    /** The exclusive acquisition of a key. */
    Acquisition get(LockLevel level, String name) {
        return exclusive(level).get(name);
    }

    /**
     * The map of a level's exclusive acquisitions by key, for the engine's re-entry and unlock to read without a hop
     * through this table; only this table changes it.
     */
    ConcurrentHashMap<String, Acquisition> exclusive(LockLevel level) {
        return level == LockLevel.DC ? dc : xdc;
    }

    /** The acquisition of a key by {@code thread} in a non-exclusive {@code mode}. */
    Acquisition get(LockLevel level, String name, Thread thread, LockMode mode) {
        return get(level, name, thread.getId(), mode);
    }

    /** The acquisition of a key by the owner of {@code ownerId} ({@link Owner#id()}) in a non-exclusive {@code mode}. */
    Acquisition get(LockLevel level, String name, long ownerId, LockMode mode) {
        return byMode.isEmpty() ? null : byMode.get(new Place(level, name, ownerId, mode));
    }

    /** Whether any non-exclusive acquisition is here: lets the exclusive path skip looking for them. */
    boolean hasNonExclusive() {
        return !byMode.isEmpty();
    }

    /** Adds {@code acquisition} under its place unless one is there; the one already there, else {@code null}. */
    Acquisition putIfAbsent(Acquisition acquisition) {
        Place place = acquisition.place();
        if (place != null) {
            return byMode.putIfAbsent(place, acquisition);
        }
        return exclusive(acquisition.key().level()).putIfAbsent(acquisition.key().name(), acquisition);
    }

    /** Removes {@code acquisition} if it is still the entry of its place. */
    void remove(Acquisition acquisition) {
        Place place = acquisition.place();
        if (place != null) {
            byMode.remove(place, acquisition);
            return;
        }
        exclusive(acquisition.key().level()).remove(acquisition.key().name(), acquisition);
    }

    /** Told of every key an acquisition of this node has left, for its waiters; set once. */
    private Consumer<LockKey> goneWatch;

    /** Sets who is told of keys left ({@link WaitQueue}); before the table is shared with other threads. */
    void watchGone(Consumer<LockKey> watch) {
        this.goneWatch = watch;
    }

    /** Takes an ended acquisition out of the table and wakes whoever waits for it to be gone. */
    void retire(Acquisition acquisition) {
        remove(acquisition);
        acquisition.markGone();
        if (goneWatch != null) {
            goneWatch.accept(acquisition.key());
        }
    }

    /**
     * Every acquisition of a key by threads of this node, in any mode. Looks through all of this node's non-exclusive
     * holds: an index by key would be one more shared structure that every shared hold of a hot key updates, which
     * halved the throughput of readers of one key in memory (benchmark figure 10), while this is asked only by
     * {@code isLocked}, {@code abort}, waiters, and a refusal by a holder of this node.
     */
    List<Acquisition> all(LockLevel level, String name) {
        List<Acquisition> found = new ArrayList<>(1);
        Acquisition exclusive = get(level, name);
        if (exclusive != null) {
            found.add(exclusive);
        }
        for (Acquisition acquisition : byMode.values()) {
            if (acquisition.key().level() == level && acquisition.key().name().equals(name)) {
                found.add(acquisition);
            }
        }
        return found;
    }

    /** The acquisitions currently held, in no particular order. */
    List<Acquisition> held() {
        List<Acquisition> held = new ArrayList<>(size());
        addHeld(dc.values(), held);
        addHeld(xdc.values(), held);
        addHeld(byMode.values(), held);
        return held;
    }

    private static void addHeld(Iterable<Acquisition> acquisitions, List<Acquisition> held) {
        for (Acquisition acquisition : acquisitions) {
            if (acquisition.isHeld()) {
                held.add(acquisition);
            }
        }
    }

    void guard(Acquisition acquisition) {
        guarded.merge(acquisition, 1, Integer::sum);
    }

    void unguard(Acquisition acquisition) {
        guarded.computeIfPresent(acquisition, (a, n) -> n == 1 ? null : n - 1);
    }

    boolean isGuarded(Acquisition acquisition) {
        return !guarded.isEmpty() && guarded.containsKey(acquisition);
    }

    /** Takes the guarded acquisitions out of {@code held} and returns them: they are checked, never renewed. */
    List<Acquisition> removeGuarded(List<Acquisition> held) {
        if (guarded.isEmpty()) {
            return List.of();
        }
        List<Acquisition> found = new ArrayList<>();
        held.removeIf(acquisition -> guarded.containsKey(acquisition) && found.add(acquisition));
        return found;
    }

    int size() {
        return dc.size() + xdc.size() + byMode.size();
    }
}
