package io.github.lockmanager.engine;

import io.github.lockmanager.LockException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.LockSet;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.internal.Require;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A set of locks taken all or nothing ({@link io.github.lockmanager.LockManager#waitForAll}): the specs in one global
 * order, level then key, so that sets which overlap are tried alike; given back in the reverse order.
 */
final class HeldSet implements LockSet {
    /** One try at one spec of the set, for the calling thread. */
    interface Taker {
        LockResource take(LockSpec spec) throws LockException;
    }

    private final List<LockResource> inGivenOrder;
    /** As taken: the global order. */
    private final List<LockResource> taken;

    private HeldSet(List<LockResource> inGivenOrder, List<LockResource> taken) {
        this.inGivenOrder = List.copyOf(inGivenOrder);
        this.taken = List.copyOf(taken);
    }

    /**
     * The specs in the order a set takes them: by level (the manager's default for a spec without one), then key.
     *
     * @throws IllegalArgumentException if there are none, one is null, or two name one key at one level
     */
    static List<Integer> order(Collection<LockSpec> specs, LockLevel defaultLevel) {
        Require.notNull(specs, "lock specs");
        Require.argument(!specs.isEmpty(), "a lock set needs at least one spec");
        List<LockSpec> given = new ArrayList<>(specs.size());
        Set<String> seen = new HashSet<>();
        for (LockSpec spec : specs) {
            Require.notNull(spec, "lock spec");
            LockLevel level = spec.level() != null ? spec.level() : defaultLevel;
            Require.argument(seen.add(level + "#" + spec.key()), "a lock set names lock '%s' (%s) twice: each key "
                    + "goes in once, in the one mode wanted", spec.key(), level);
            given.add(spec);
        }
        Integer[] order = new Integer[given.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Comparator<Integer> byLevelThenKey = Comparator
                .comparing((Integer i) -> given.get(i).level() != null ? given.get(i).level() : defaultLevel)
                .thenComparing(i -> given.get(i).key());
        Arrays.sort(order, byLevelThenKey);
        return List.of(order);
    }

    /**
     * One round: with {@code first} held already (or {@code null}), tries every other spec once in {@code order}.
     *
     * @return the set, or {@code null} after giving back what was taken when one was refused; {@code refused[0]} is
     *         then the index of that spec
     */
    static HeldSet tryAll(List<LockSpec> specs, List<Integer> order, int firstIndex, LockResource first, Taker taker,
                          int[] refused) throws LockException {
        LockResource[] held = new LockResource[specs.size()];
        List<LockResource> taken = new ArrayList<>(specs.size());
        if (first != null) {
            held[firstIndex] = first;
        }
        int at = -1;
        try {
            for (int index : order) {
                at = index;
                if (held[index] == null) {
                    held[index] = taker.take(specs.get(index));
                }
                taken.add(held[index]);
            }
        } catch (io.github.lockmanager.AlreadyLockedException e) {
            giveBack(held, order);
            refused[0] = at;
            throw e;
        } catch (LockException | RuntimeException | Error e) {
            giveBack(held, order);
            throw e;
        }
        return new HeldSet(Arrays.asList(held), taken);
    }

    /** Gives back every lock held, in the reverse of {@code order}, and forgets them. */
    private static void giveBack(LockResource[] held, List<Integer> order) {
        for (int i = order.size() - 1; i >= 0; i--) {
            LockResource lock = held[order.get(i)];
            if (lock != null) {
                held[order.get(i)] = null;
                lock.close();
            }
        }
    }

    @Override
    public List<LockResource> getLocks() {
        return inGivenOrder;
    }

    @Override
    public boolean isLost() {
        for (LockResource lock : taken) {
            if (lock.isLost()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() {
        for (int i = taken.size() - 1; i >= 0; i--) {
            taken.get(i).close();
        }
    }

    @Override
    public String toString() {
        return "LockSet" + taken;
    }
}
