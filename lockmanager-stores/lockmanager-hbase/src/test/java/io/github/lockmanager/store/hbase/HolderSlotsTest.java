package io.github.lockmanager.store.hbase;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import org.junit.jupiter.api.Test;

import java.util.BitSet;

import static org.assertj.core.api.Assertions.assertThat;

class HolderSlotsTest {
    private final HolderSlots slots = new HolderSlots();
    private final LockKey key = LockKey.xdc("slots", "k");

    @Test
    void claimsSkipWhatThisStoreClaimedAndWhatTheRowShowsTaken() {
        BitSet taken = new BitSet();
        taken.set(5);
        assertThat(slots.claim(key.storageKey(), 4, HBaseTableLayout.SLOTS, taken)).isEqualTo(4);
        assertThat(slots.claim(key.storageKey(), 4, HBaseTableLayout.SLOTS, taken)).as("4 is claimed here, 5 taken in the row").isEqualTo(6);
        assertThat(slots.claim(key.storageKey(), HBaseTableLayout.SLOTS - 1, HBaseTableLayout.SLOTS, new BitSet())).isEqualTo(HBaseTableLayout.SLOTS - 1);
        assertThat(slots.claim(key.storageKey(), HBaseTableLayout.SLOTS - 1, HBaseTableLayout.SLOTS, new BitSet())).as("wraps around").isZero();
    }

    @Test
    void droppingTheLastHolderOfAKeyForgetsTheKey() {
        LockHandle handle = new LockHandle(key, "owner");
        int slot = slots.claim(key.storageKey(), 3, HBaseTableLayout.SLOTS, new BitSet());
        slots.hold(handle, new HolderSlots.Held(new byte[]{1}, slot, HolderCell.prefix(LockMode.SHARED, 0, "owner"),
                new HolderCell(LockMode.SHARED, 0, "owner", 1, new LockMeta("n", "t", 0, 1000))));
        assertThat(slots.claimedBesides(key.storageKey(), slot)).isFalse();
        int other = slots.claim(key.storageKey(), 3, HBaseTableLayout.SLOTS, new BitSet());
        assertThat(slots.claimedBesides(key.storageKey(), slot)).isTrue();
        slots.unclaim(key.storageKey(), other);

        slots.drop(handle);

        assertThat(slots.of(handle)).isNull();
        assertThat(slots.claimedKeys()).isZero();
    }
}
