package io.github.lockmanager.store.hbase;

import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.store.support.HolderRegistry;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

import static io.github.lockmanager.store.hbase.HBaseTableLayout.SLOTS;

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
     * Claims the first slot from {@code from} on (wrapping) that neither this store has claimed nor {@code seen}
     * shows taken.
     *
     * @return the slot, or -1 if every slot is taken
     */
    synchronized int claim(String storageKey, int from, BitSet seen) {
        BitSet mine = claimed.computeIfAbsent(storageKey, k -> new BitSet());
        for (int i = 0; i < SLOTS; i++) {
            int slot = (from + i) % SLOTS;
            if (!mine.get(slot) && !seen.get(slot)) {
                mine.set(slot);
                return slot;
            }
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

    /** Forgets the holder of {@code handle} and frees its slot for this store's next claims. */
    void drop(LockHandle handle) {
        Held gone = held.forget(handle);
        if (gone != null) {
            unclaim(handle.key().storageKey(), gone.slot());
        }
    }
}
