package io.github.lockmanager.spi;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LockHandleTest {
    private static final LockKey KEY = LockKey.xdc("client", "order-1");

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 9, 10, 99, 100, 123_456_789, Integer.MAX_VALUE, Integer.MAX_VALUE + 1L, Long.MAX_VALUE})
    void aHandleOfPrefixAndSerialIsTheHandleOfItsTokenText(long serial) {
        LockHandle parts = LockHandle.of(KEY, "a1b2:", serial);
        LockHandle text = new LockHandle(KEY, "a1b2:" + serial);
        assertThat(parts.ownerToken()).isEqualTo("a1b2:" + serial);
        assertThat(parts).isEqualTo(text).hasSameHashCodeAs(text);
        assertThat(text).isEqualTo(parts);
        Map<LockHandle, String> byHandle = new HashMap<>();
        byHandle.put(text, "read from a store");
        assertThat(byHandle).containsEntry(parts, "read from a store");
    }

    @Test
    void handlesDifferInKeyOrToken() {
        LockHandle handle = LockHandle.of(KEY, "p:", 12);
        assertThat(handle).isNotEqualTo(LockHandle.of(KEY, "p:", 13)).isNotEqualTo(LockHandle.of(KEY, "q:", 12))
                .isNotEqualTo(LockHandle.of(LockKey.xdc("client", "order-2"), "p:", 12))
                .isNotEqualTo(new LockHandle(KEY, "p:120")).isNotEqualTo(new LockHandle(KEY, "p:1"));
        // the same text from another split of prefix and serial is the same token
        assertThat(LockHandle.of(KEY, "p:1", 2)).isEqualTo(handle).hasSameHashCodeAs(handle);
        // a serial past an int's range is kept in the text: still its own token, and the same as its text
        LockHandle large = LockHandle.of(KEY, "p:", 1L << 31);
        LockHandle sameText = LockHandle.of(KEY, "p:2147", 483_648);
        assertThat(large).isNotEqualTo(LockHandle.of(KEY, "p:", 0)).isNotEqualTo(LockHandle.of(KEY, "p:", 214_748_364))
                .isEqualTo(sameText).hasSameHashCodeAs(sameText);
    }

    @Test
    void badTokensAreRefusedNamingWhatIsWrong() {
        assertThatThrownBy(() -> new LockHandle(KEY, "")).hasMessage("ownerToken must not be null or empty");
        assertThatThrownBy(() -> LockHandle.of(KEY, null, 1)).hasMessage("ownerToken must not be null or empty");
        assertThatThrownBy(() -> LockHandle.of(KEY, "p:", -1)).hasMessage("ownerSerial must not be negative, was -1");
        assertThatThrownBy(() -> new LockHandle(null, "t")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key must not be null");
    }
}
