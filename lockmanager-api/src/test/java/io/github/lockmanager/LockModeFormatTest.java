package io.github.lockmanager;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Stores keep a mode by its code (binary records) or its text (SQL rows): both are stored formats, pinned here so
 * that reordering or renaming the constants fails this test instead of misreading records a cluster already holds.
 */
class LockModeFormatTest {
    @Test
    void codesArePinned() {
        assertThat(LockMode.INTENT_SHARED.code()).isZero();
        assertThat(LockMode.INTENT_EXCLUSIVE.code()).isEqualTo(1);
        assertThat(LockMode.SHARED.code()).isEqualTo(2);
        assertThat(LockMode.EXCLUSIVE.code()).isEqualTo(3);
        assertThat(LockMode.PERMIT.code()).isEqualTo(4);
        for (LockMode mode : LockMode.values()) {
            assertThat(LockMode.ofCode(mode.code())).isSameAs(mode);
        }
        assertThat(Arrays.stream(LockMode.values()).mapToInt(LockMode::code).distinct().count())
                .isEqualTo(LockMode.values().length);
    }

    @Test
    void textsArePinned() {
        assertThat(LockMode.INTENT_SHARED.text(0)).isEqualTo("INTENT_SHARED");
        assertThat(LockMode.INTENT_EXCLUSIVE.text(0)).isEqualTo("INTENT_EXCLUSIVE");
        assertThat(LockMode.SHARED.text(0)).isEqualTo("SHARED");
        assertThat(LockMode.EXCLUSIVE.text(7)).isEqualTo("EXCLUSIVE");
        assertThat(LockMode.PERMIT.text(3)).isEqualTo("PERMIT:3");
    }

    @Test
    void anUnknownCodeIsNamedAsANewerRecord() {
        assertThatThrownBy(() -> LockMode.ofCode(5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no lock mode has code 5").hasMessageContaining("newer release");
        assertThatThrownBy(() -> LockMode.ofCode(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
