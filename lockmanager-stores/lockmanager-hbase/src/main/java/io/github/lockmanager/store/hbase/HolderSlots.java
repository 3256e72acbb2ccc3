package io.github.lockmanager.store.hbase;

import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.store.support.HolderRegistry;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/**
 * What this store knows of the holder slots its own acquisitions sit in: which handle holds which slot (renewal and
 * release name the slot, and a handle carries only its key and owner token), and which slots of a key this store has
 * claimed, so that two of its threads never try the same slot. Short critical sections, never across a store call.
 */
final class HolderSlots {
    /** A holder of this store: its row, slot, the prefix of its values and the cell its renewals write. */
    record Held(byte[] row, int slot, byte[] prefix, HolderCell cell) {
    }

    private final HolderRegistry<Held> held = new HolderRegistry<>();
    private final Map<String, BitSet> claimed = new HashMap<>();

    /**
     * Claims the first slot below {@code limit} from {@code from} on (wrapping) that neither this store has claimed
     * nor {@code seen} shows taken.
     *
     * @param limit the slots a holder may take: {@link HBaseTableLayout#SLOTS}, or a permit holder's number
     * @return the slot, or -1 if every slot below {@code limit} is taken
     */
    synchronized int claim(String storageKey, int from, int limit, BitSet seen) {
        BitSet mine = claimed.computeIfAbsent(storageKey, k -> new BitSet());
        for (int i = 0; i < limit; i++) {
            int slot = (from + i) % limit;
            if (!mine.get(slot) && !seen.get(slot)) {
                mine.set(slot);
                return slot;
            }
        }
        if (mine.isEmpty()) {
            claimed.remove(storageKey);
        }
        return -1;
    }

    /** Claims {@code slot} whatever this store thought of it: the row shows this store's holder there. */
    synchronized void claimExactly(String storageKey, int slot) {
        claimed.computeIfAbsent(storageKey, k -> new BitSet()).set(slot);
    }

    synchronized void unclaim(String storageKey, int slot) {
        BitSet mine = claimed.get(storageKey);
        if (mine != null) {
            mine.clear(slot);
            if (mine.isEmpty()) {
                claimed.remove(storageKey);
            }
        }
    }

    /** Whether this store has claimed a slot of the key besides {@code slot}. */
    synchronized boolean claimedBesides(String storageKey, int slot) {
        BitSet mine = claimed.get(storageKey);
        return mine != null && mine.cardinality() > (mine.get(slot) ? 1 : 0);
    }

    /** How many keys this store has claims on: what it keeps for them, which must not outlive their holders. */
    synchronized int claimedKeys() {
        return claimed.size();
    }

    void hold(LockHandle handle, Held holder) {
        held.remember(handle, holder);
    }

    /** The holder of {@code handle}, or {@code null} if it is not (or no longer) one of this store's slots. */
    Held of(LockHandle handle) {
        return held.routeOf(handle);
    }

    /** This store's holders of {@code key} as they are now, for {@link #forgetVacated}. */
    Map<LockHandle, Held> holdersOf(LockKey key) {
        return held.holdersOf(key);
    }

    /**
     * Forgets those of {@code before} (taken before the row was read) whose slot below {@code limit} the row shows free:
     * their lease ended, or another node forced them out, without this store hearing of it, and their claims would
     * keep this store's permit takers out of the key's few slots.
     *
     * @return whether it forgot one
     */
    boolean forgetVacated(Map<LockHandle, Held> before, BitSet taken, int limit) {
        boolean forgot = false;
        for (Map.Entry<LockHandle, Held> holder : before.entrySet()) {
            int slot = holder.getValue().slot();
            if (slot < limit && !taken.get(slot)) {
                drop(holder.getKey());
                forgot = true;
            }
        }
        return forgot;
    }

    /** Forgets the holder of {@code handle} and frees its slot for this store's next claims. */
    void drop(LockHandle handle) {
        Held gone = held.forget(handle);
        if (gone != null) {
            unclaim(handle.key().storageKey(), gone.slot());
        }
    }
}
