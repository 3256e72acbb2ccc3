package io.github.lockmanager.spi;

import io.github.lockmanager.LockStatus;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The two answers every store gives the same way: who holds a key after a write, and the state of a hold. */
class StoreAnswersTest {
    private static final LockKey KEY = LockKey.xdc("client", "job");

    private static LockRecord recordOf(String owner) {
        Instant now = Instant.now();
        return new LockRecord(new LockHandle(KEY, owner), "node", "thread", now, now.plusSeconds(30),
                LockStatus.RUNNING, 7);
    }

    @Test
    void aRecordThatIsTheRequestersOwnIsAnAcquisitionOtherwiseItsHolder() {
        LockRecord mine = recordOf("me");
        AcquireResult ours = AcquireResult.fromRecord(new LockHandle(KEY, "me"), mine);
        assertThat(ours.isAcquired()).isTrue();
        assertThat(ours.record()).isSameAs(mine);

        LockRecord theirs = recordOf("them");
        AcquireResult refused = AcquireResult.fromRecord(new LockHandle(KEY, "me"), theirs);
        assertThat(refused.isAcquired()).isFalse();
        assertThat(refused.record()).isSameAs(theirs);

        AcquireResult unknown = AcquireResult.fromRecord(new LockHandle(KEY, "me"), null);
        assertThat(unknown.isAcquired()).isFalse();
        assertThat(unknown.record()).isNull();
        assertThatThrownBy(() -> AcquireResult.fromRecord(null, mine)).hasMessage("requester must not be null");
    }

    @Test
    void anAbortRequestCountsOnlyWhileTheLockIsHeld() {
        assertThat(HoldState.of(true, false)).isEqualTo(HoldState.HELD);
        assertThat(HoldState.of(true, true)).isEqualTo(HoldState.ABORT_REQUESTED);
        assertThat(HoldState.of(false, true)).isEqualTo(HoldState.LOST);
        assertThat(HoldState.of(false, false)).isEqualTo(HoldState.LOST);
    }
}
