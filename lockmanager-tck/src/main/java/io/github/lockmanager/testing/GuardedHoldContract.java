package io.github.lockmanager.testing;

import io.github.lockmanager.testing.support.InstrumentedStore;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.GuardedHold;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Holds lent to guarded work ({@link LockResource#guard()}), on a store: the work that ends with the last hold removes
 * the record itself (here: the store's own release, standing in for a commit that includes it), the manager's table
 * and hold counts follow the work's outcome, and nothing is left behind or released twice.
 */
public abstract class GuardedHoldContract extends ContractNodes {
    /** The holds the finish was told about, in order. */
    private final List<Boolean> lastHolds = new ArrayList<>();

    /** Work that removes the record when it ends with the last hold, as a transaction's commit would. */
    private GuardedHold.Finish<Exception> removingTheRecord() {
        return (handle, lastHold) -> {
            lastHolds.add(lastHold);
            if (lastHold) {
                assertThat(store().release(handle)).as("the record was still the acquisition's").isTrue();
            }
        };
    }

    private GuardedHold.Finish<IOException> failing() {
        return (handle, lastHold) -> {
            lastHolds.add(lastHold);
            throw new IOException("the work's commit failed");
        };
    }

    @Test
    void workEndingWithTheLastHoldReleasesTheLockWithoutAStoreCallOfTheManager() throws Exception {
        InstrumentedStore counted = new InstrumentedStore(store());
        LockManager a = start(nodeBuilder("a", counted));
        LockManager b = node("b");
        LockResource held = a.lock("job");
        try (GuardedHold guard = held.guard()) {
            assertThat(guard.handle().key().name()).isEqualTo("job");
            guard.release(removingTheRecord(), false);
        }
        assertThat(lastHolds).containsExactly(true);
        assertThat(held.isClosed()).isTrue();
        assertThat(counted.calls("release")).as("releases by the manager").isZero();
        assertThat(a.getLocks()).isEmpty();
        try (LockResource next = b.lock("job")) {
            assertThat(next.getFencingToken()).isGreaterThan(held.getFencingToken());
        }
        assertThat(a.lock("job").isNewLock()).as("the table forgot the acquisition").isTrue();
    }

    @Test
    void workEndingWithAnInnerHoldLeavesTheRecordAndTheOtherHold() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        LockResource outer = a.lock("job");
        LockResource inner = a.lock("job");
        inner.guard().release(removingTheRecord(), false);
        assertThat(lastHolds).containsExactly(false);
        assertThat(inner.isClosed()).isTrue();
        assertThat(outer.isClosed()).isFalse();
        assertThat(b.isLocked("job")).isTrue();
        outer.close();
        assertThat(b.isLocked("job")).isFalse();
    }

    @Test
    void failedWorkKeepsTheHoldAsItWasWhenAskedTo() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        LockResource held = a.lock("job");
        GuardedHold guard = held.guard();
        assertThatThrownBy(() -> guard.release(failing(), true)).isInstanceOf(IOException.class);
        assertThat(lastHolds).containsExactly(true);
        assertThat(held.isClosed()).isFalse();
        assertThat(b.isLocked("job")).isTrue();
        assertThat(a.lock("job").isNewLock()).as("a re-entry of the kept hold").isFalse();
        a.unlock("job");
        held.close();
        assertThat(b.isLocked("job")).isFalse();
    }

    @Test
    void failedWorkGivesBackTheHoldAndTheManagerReleasesTheRecord() throws Exception {
        InstrumentedStore counted = new InstrumentedStore(store());
        LockManager a = start(nodeBuilder("a", counted));
        LockManager b = node("b");
        LockResource held = a.lock("job");
        assertThatThrownBy(() -> held.guard().release(failing(), false)).isInstanceOf(IOException.class);
        assertThat(held.isClosed()).isTrue();
        assertThat(counted.calls("release")).isEqualTo(1);
        assertThat(b.isLocked("job")).isFalse();
    }

    @Test
    void aLockThatEndedBeforeItsWorkIsReportedLostAndTheWorkNotFinished() throws Exception {
        LockManager a = node("a");
        LockResource held = a.lock("job");
        GuardedHold guard = held.guard();
        held.close();
        assertThatThrownBy(() -> guard.release(removingTheRecord(), false)).isInstanceOf(LockLostException.class)
                .hasMessageContaining("job");
        assertThat(lastHolds).isEmpty();
        assertThatThrownBy(held::guard).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> guard.release(removingTheRecord(), false)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aGuardedPathGivesBackItsAncestorsWithTheResource() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        LockResource path = a.lock(LockSpec.path("site/orders/o-1", LockMode.EXCLUSIVE));
        path.guard().release(removingTheRecord(), false);
        assertThat(path.isClosed()).isTrue();
        assertThat(a.getLocks()).isEmpty();
        b.lock("site").close();
    }
}
