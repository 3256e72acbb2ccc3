package io.github.lockmanager.store.support;

import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The rules the store kit writes once: the fencing epoch, the holder registry, the marks. */
class StoreKitRulesTest {
    private static final LockKey KEY = LockKey.xdc("client", "k");

    @Test
    void tokensRiseByOneAndACounterStartedLaterStartsAboveEveryEarlierToken() {
        long start = 1_700_000_000_000L;
        long token = FencingEpoch.first(start);
        assertThat(FencingEpoch.next(token, start)).isEqualTo(token + 1);
        // 999 more grants in the same millisecond stay below the next millisecond's start
        for (int i = 0; i < 999; i++) {
            token = FencingEpoch.next(token, start);
        }
        assertThat(token).isLessThan(FencingEpoch.first(start + 1));
        assertThat(FencingEpoch.first(start + 1)).isGreaterThan(token);
        assertThat(FencingEpoch.next(token, start + 5)).as("a late grant jumps to its millisecond")
                .isEqualTo(FencingEpoch.first(start + 5));
        assertThatThrownBy(() -> FencingEpoch.first(Long.MAX_VALUE / 10)).isInstanceOf(ArithmeticException.class);
    }

    @Test
    void theRegistryForgetsReleasedAndLostHoldersOnly() {
        HolderRegistry<String> holders = new HolderRegistry<>();
        LockHandle lost = new LockHandle(KEY, "a:1");
        LockHandle held = new LockHandle(KEY, "a:2");
        LockHandle released = new LockHandle(KEY, "a:3");
        LockHandle stranger = new LockHandle(KEY, "b:1");
        holders.remember(lost, "slot 1");
        holders.remember(held, "slot 2");
        holders.remember(released, "slot 3");
        assertThat(holders.routeOf(held)).isEqualTo("slot 2");
        assertThat(holders.isHolder(stranger)).isFalse();

        assertThat(holders.forget(released)).isEqualTo("slot 3");
        Map<LockHandle, HoldState> answers = new LinkedHashMap<>();
        answers.put(lost, HoldState.LOST);
        answers.put(held, HoldState.ABORT_REQUESTED);
        answers.put(stranger, HoldState.LOST);
        assertThat(holders.forgetLost(answers)).isSameAs(answers);

        assertThat(holders.isHolder(lost)).isFalse();
        assertThat(holders.routeOf(held)).isEqualTo("slot 2");
        assertThat(holders.size()).isEqualTo(1);
        assertThat(holders.forget(lost)).isNull();
    }

    @Test
    void noOwnerTokenCanBeAMark() {
        assertThat(HolderMarks.isMark(HolderMarks.SHARED)).isTrue();
        assertThat(HolderMarks.isMark(HolderMarks.INTENT)).isTrue();
        assertThat(HolderMarks.isMark("a:1")).isFalse();
        assertThat(HolderMarks.isMark(null)).isFalse();
        assertThatThrownBy(() -> LockHandle.of(KEY, HolderMarks.SHARED, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ownerToken must not start with '~'");
    }
}
