package io.github.lockmanager.store.cassandra;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.store.support.FencingEpoch;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The state cell's format and the decisions made on it, without a server. */
class KeyStateTest {
    private static final LockKey KEY = LockKey.dc("farm", "client", "k");
    private static final long NOW = 1_800_000_000_000L;

    private static LockRequest request(String owner, LockMode mode) {
        return LockRequest.of(new LockHandle(KEY, owner), "node", "thread", mode);
    }

    @Test
    void aStateReadsBackAsItWasWritten() {
        KeyState state = new KeyState(42, List.of(
                new Holder("o1", LockMode.SHARED, 0, "n1", "t1", NOW, NOW + 1000, 41, false),
                new Holder("o2", LockMode.PERMIT, 3, "n2", "tâche-2", NOW, NOW + 2000, 42, true)));
        assertThat(KeyState.decode(state.encode())).isEqualTo(state);
        assertThat(KeyState.decode(null)).isEqualTo(KeyState.EMPTY);
    }

    /** What this release writes, the next must read: the bytes of format 1 are fixed here. */
    @Test
    void formatOneIsReadAsWritten() {
        String formatOne = "01" + "000000000000002a" + "0001" + "00026f31" + "00" + "00000000" + "00026e31" + "00027431"
                + "0000000000000064" + "00000000000000c8" + "000000000000002a" + "01";
        KeyState read = KeyState.decode(ByteBuffer.wrap(HexFormat.of().parseHex(formatOne)));
        assertThat(read).isEqualTo(new KeyState(42, List.of(
                new Holder("o1", LockMode.ofCode(0), 0, "n1", "t1", 100, 200, 42, true))));
        assertThat(HexFormat.of().formatHex(read.encode().array())).isEqualTo(formatOne);
    }

    @Test
    void aLaterFormatIsRefusedByName() {
        assertThatThrownBy(() -> KeyState.decode(ByteBuffer.wrap(new byte[] {2, 0})))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("format 2");
    }

    @Test
    void aGrantTakesATokenAboveTheCounterAndOutOfTheWriterClock() {
        KeyStates.Change<AcquireResult> first = KeyStates.acquire(KeyState.EMPTY, request("a", LockMode.EXCLUSIVE),
                1000, NOW, 50);
        assertThat(first.answer().isAcquired()).isTrue();
        assertThat(first.next().counter()).isEqualTo(FencingEpoch.first(NOW));
        KeyState released = KeyStates.release(first.next(), "a").next();
        KeyStates.Change<AcquireResult> second = KeyStates.acquire(released, request("b", LockMode.EXCLUSIVE), 1000,
                NOW, 50);
        assertThat(second.answer().record().fencingToken()).isEqualTo(FencingEpoch.first(NOW) + 1);
    }

    @Test
    void anotherNodesHolderCountsUntilItsExpiryAndTheClockSkew() {
        KeyState held = KeyStates.acquire(KeyState.EMPTY, request("a", LockMode.EXCLUSIVE), 1000, NOW, 50).next();
        assertThat(KeyStates.acquire(held, request("b", LockMode.EXCLUSIVE), 1000, NOW + 1050, 50).answer()
                .isAcquired()).isFalse();
        KeyStates.Change<AcquireResult> after = KeyStates.acquire(held, request("b", LockMode.EXCLUSIVE), 1000,
                NOW + 1051, 50);
        assertThat(after.answer().isAcquired()).isTrue();
        assertThat(after.next().holders()).extracting(Holder::owner).containsExactly("b");
        // its own holder is over at the expiry itself: a renewal then is refused, and leaves no trace
        KeyStates.Change<java.util.Map<String, HoldState>> renewal = KeyStates.renew(held, List.of("a"), 1000,
                NOW + 1001);
        assertThat(renewal.answer()).containsEntry("a", HoldState.LOST);
        assertThat(renewal.next().holders()).isEmpty();
    }

    @Test
    void aRetriedGrantFindsItsOwnHolder() {
        KeyState held = KeyStates.acquire(KeyState.EMPTY, request("a", LockMode.EXCLUSIVE), 1000, NOW, 50).next();
        KeyStates.Change<AcquireResult> again = KeyStates.acquire(held, request("a", LockMode.EXCLUSIVE), 1000,
                NOW + 10, 50);
        assertThat(again.next()).isNull();
        assertThat(again.answer().isAcquired()).isTrue();
    }
}
