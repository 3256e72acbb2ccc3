package io.github.lockmanager.store.support;

import io.github.lockmanager.LockStatus;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The rules the store kit writes once: the fencing epoch, the holder registry, the marks, the order over marks. */
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

    @Test
    void anExclusiveAcquisitionTakesOverOnlyAMarkWithoutLiveHoldersAndNamesWhoeverWon() {
        LockRecord mine = record("a:1");
        LockRecord reader = record("b:1");
        LockRecord writer = record("c:1");
        LockRecord mark = record(HolderMarks.SHARED);

        Steps free = new Steps(AcquireResult.acquired(mine));
        assertThat(ExclusiveOverMarks.acquire(free).record()).isEqualTo(mine);
        assertThat(free.calls).containsExactly("write");

        Steps held = new Steps(null, writer);
        assertThat(ExclusiveOverMarks.acquire(held).record()).isEqualTo(writer);
        assertThat(held.calls).containsExactly("write", "read", "refuse " + writer.handle().ownerToken());

        Steps read = new Steps(null, mark);
        read.liveHolder = reader;
        AcquireResult refused = ExclusiveOverMarks.acquire(read);
        assertThat(refused.isAcquired()).isFalse();
        assertThat(refused.record()).as("a live holder behind the mark is named").isEqualTo(reader);
        assertThat(read.calls).containsExactly("write", "read", "holders");

        Steps crashed = new Steps(null, mark);
        crashed.takeOver = AcquireResult.acquired(mine);
        assertThat(ExclusiveOverMarks.acquire(crashed).record()).isEqualTo(mine);
        assertThat(crashed.calls).containsExactly("write", "read", "holders", "take over");

        Steps raced = new Steps(null, mark, writer);
        assertThat(ExclusiveOverMarks.acquire(raced).record()).as("the winner of the take-over").isEqualTo(writer);
        assertThat(raced.calls).containsExactly("write", "read", "holders", "take over", "read",
                "refuse " + writer.handle().ownerToken());
    }

    private static LockRecord record(String owner) {
        Instant now = Instant.now();
        return new LockRecord(new LockHandle(KEY, owner), "node", "thread", now, now.plusSeconds(30),
                LockStatus.RUNNING, 1);
    }

    /** Scripted steps: the write's answer, the rows read in turn, the holder behind a mark, the take-over's answer. */
    private static final class Steps implements ExclusiveOverMarks.Steps<LockRecord, RuntimeException> {
        final List<String> calls = new ArrayList<>();
        private final AcquireResult written;
        private final Deque<LockRecord> reads;
        LockRecord liveHolder;
        AcquireResult takeOver;

        Steps(AcquireResult written, LockRecord... reads) {
            this.written = written;
            this.reads = new ArrayDeque<>(List.of(reads));
        }

        @Override
        public AcquireResult writeIfFree() {
            calls.add("write");
            return written;
        }

        @Override
        public LockRecord read() {
            calls.add("read");
            return reads.remove();
        }

        @Override
        public boolean isMark(LockRecord key) {
            return HolderMarks.isMark(key.handle().ownerToken());
        }

        @Override
        public Optional<LockRecord> liveHolderBehind(LockRecord key) {
            calls.add("holders");
            return Optional.ofNullable(liveHolder);
        }

        @Override
        public AcquireResult takeOver(LockRecord key) {
            calls.add("take over");
            return takeOver;
        }

        @Override
        public AcquireResult refusal(LockRecord key) {
            calls.add("refuse " + key.handle().ownerToken());
            return AcquireResult.heldBy(key);
        }
    }
}
