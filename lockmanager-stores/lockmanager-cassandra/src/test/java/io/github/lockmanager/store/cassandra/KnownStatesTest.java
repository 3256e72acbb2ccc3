package io.github.lockmanager.store.cassandra;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;

/** The remembered cells: bounded, the least recently used key leaving first, each cell kept as a copy. */
class KnownStatesTest {

    @Test
    void theLeastRecentlyUsedKeyLeavesFirst() {
        KnownStates known = new KnownStates(2);
        known.put("a", null, KeyState.EMPTY);
        known.put("b", null, KeyState.EMPTY);
        known.get("a");
        known.put("c", null, KeyState.EMPTY);
        assertThat(known.size()).isEqualTo(2);
        assertThat(known.get("b")).isNull();
        assertThat(known.get("a")).isNotNull();
        assertThat(known.get("c")).isNotNull();
    }

    @Test
    void aCellIsKeptAsACopy() {
        KnownStates known = new KnownStates(2);
        ByteBuffer cell = KeyState.EMPTY.encode();
        known.put("a", cell, KeyState.EMPTY);
        cell.put(0, (byte) 9);
        assertThat(known.get("a").cell().get(0)).isEqualTo(KeyState.FORMAT);
    }
}
