package io.github.lockmanager;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LockSpecTest {

    @Test
    void eachFactorySaysItsModeAndTheSettingsAddUp() {
        LockSpec spec = LockSpec.permits("pool", 4).at(LockLevel.XDC).lease(Duration.ofSeconds(5));
        assertThat(spec.key()).isEqualTo("pool");
        assertThat(spec.mode()).isEqualTo(LockMode.PERMIT);
        assertThat(spec.permits()).isEqualTo(4);
        assertThat(spec.level()).isEqualTo(LockLevel.XDC);
        assertThat(spec.lease()).isEqualTo(Duration.ofSeconds(5));
        assertThat(spec.isPath()).isFalse();
        assertThat(spec).isEqualTo(LockSpec.permits("pool", 4).lease(Duration.ofSeconds(5)).at(LockLevel.XDC))
                .hasSameHashCodeAs(LockSpec.permits("pool", 4).lease(Duration.ofSeconds(5)).at(LockLevel.XDC))
                .hasToString("LockSpec['pool' PERMIT of 4, XDC, lease PT5S]");

        assertThat(LockSpec.of("job").mode()).isEqualTo(LockMode.EXCLUSIVE);
        assertThat(LockSpec.of("job").level()).as("the manager's default").isNull();
        assertThat(LockSpec.of("job").lease()).as("the manager's lease").isNull();
        assertThat(LockSpec.shared("doc").mode()).isEqualTo(LockMode.SHARED);
        assertThat(LockSpec.path("a/b", LockMode.SHARED).isPath()).isTrue();
        assertThat(LockSpec.of("job")).isNotEqualTo(LockSpec.shared("job")).isNotEqualTo(LockSpec.of("job").at(LockLevel.DC));
    }

    @Test
    void badInputIsRefusedWhereItIsGivenNamingWhatIsWrong() {
        assertThatThrownBy(() -> LockSpec.of(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lock key");
        assertThatThrownBy(() -> LockSpec.shared("")).hasMessageContaining("empty");
        assertThatThrownBy(() -> LockSpec.of("x".repeat(LockManager.LOCK_KEY_MAX_LENGTH + 1)))
                .hasMessageContaining("257");
        assertThatThrownBy(() -> LockSpec.permits("pool", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("from 1 to " + LockManager.MAX_PERMITS);
        assertThatThrownBy(() -> LockSpec.permits("pool", LockManager.MAX_PERMITS + 1))
                .hasMessageContaining("was " + (LockManager.MAX_PERMITS + 1));
        assertThatThrownBy(() -> LockSpec.path("a/b", null)).hasMessageContaining("lock mode");
        assertThatThrownBy(() -> LockSpec.path("a/b", LockMode.INTENT_EXCLUSIVE))
                .hasMessageContaining("not INTENT_EXCLUSIVE");
        assertThatThrownBy(() -> LockSpec.path("a/b", LockMode.PERMIT)).hasMessageContaining("not PERMIT");
        assertThatThrownBy(() -> LockSpec.of("job").at(null)).hasMessageContaining("lock level");
        assertThatThrownBy(() -> LockSpec.of("job").lease(null)).hasMessageContaining("lease");
        assertThatThrownBy(() -> LockSpec.of("job").lease(Duration.ofMillis(99)))
                .hasMessage("lease must be at least 100ms, was PT0.099S");
        assertThatThrownBy(() -> LockSpec.of("job").lease(Duration.ofDays(2)))
                .hasMessage("lease must be at most PT24H, was PT48H");
    }
}
