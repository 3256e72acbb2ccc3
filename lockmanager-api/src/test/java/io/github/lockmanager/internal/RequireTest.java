package io.github.lockmanager.internal;

import io.github.lockmanager.Lock;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RequireTest {
    @Test
    void passesGoodValuesThrough() {
        assertThat(Require.notNull("x", "name")).isEqualTo("x");
        assertThat(Require.notEmpty("x", "name")).isEqualTo("x");
        Require.argument(true, "never %s", "formatted");
    }

    @Test
    void everyRefusalIsAnIllegalArgumentNamingTheArgument() {
        assertThatThrownBy(() -> Require.notNull(null, "store")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("store must not be null");
        assertThatThrownBy(() -> Require.notEmpty("", "nodeId")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("nodeId must not be null or empty");
        assertThatThrownBy(() -> Require.notEmpty(null, "nodeId")).hasMessage("nodeId must not be null or empty");
        assertThatThrownBy(() -> Require.argument(false, "%s must be at most %d, was %d", "size", 10, 11))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("size must be at most 10, was 11");
    }

    @Test
    void valueTypesRefuseNullTheSameWay() {
        Instant now = Instant.now();
        assertThatThrownBy(() -> new Lock("k", LockLevel.DC, null, "t", now, now, LockStatus.RUNNING, 1, LockMode.EXCLUSIVE))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("ownerNodeId must not be null");
        LockHandle handle = new LockHandle(LockKey.xdc("client", "k"), "owner");
        assertThatThrownBy(() -> new LockRecord(handle, "node", "thread", now, null, LockStatus.RUNNING, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("expirationTime must not be null");
        assertThatThrownBy(() -> LockRequest.of(handle, "node", null, LockMode.EXCLUSIVE))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("threadName must not be null");
    }
}
