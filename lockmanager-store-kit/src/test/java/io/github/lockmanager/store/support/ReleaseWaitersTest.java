package io.github.lockmanager.store.support;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The watchers of announced releases: registered before they are marked, woken once, by key or all at once. */
class ReleaseWaitersTest {
    private final ReleaseWaiters waiters = new ReleaseWaiters();

    @Test
    void aReleaseHeardWhileTheWatcherMarksItselfIsNotMissed() throws Exception {
        AtomicInteger woken = new AtomicInteger();
        // the release is heard between the mark's write and the return: the watcher must be woken all the same
        waiters.watch("k", woken::incrementAndGet, () -> {
            waiters.wake("k");
            return true;
        });
        assertThat(woken).hasValue(1);
    }

    @Test
    void aKeyThatIsNotHeldWakesItsWatcherAtOnceAndKeepsNothing() throws Exception {
        AtomicInteger woken = new AtomicInteger();
        waiters.watch("k", woken::incrementAndGet, () -> false);
        assertThat(woken).hasValue(1);
        waiters.wake("k");
        assertThat(woken).as("woken once").hasValue(1);
    }

    @Test
    void aWakeOfOneKeyLeavesTheOthersWatchingAndWakeAllWakesThemOnce() throws Exception {
        AtomicInteger a = new AtomicInteger();
        AtomicInteger b = new AtomicInteger();
        waiters.watch("a", a::incrementAndGet, () -> true);
        waiters.watch("b", b::incrementAndGet, () -> true);
        waiters.wake("a");
        assertThat(a).hasValue(1);
        assertThat(b).hasValue(0);
        waiters.wakeAll();
        waiters.wakeAll();
        assertThat(a).hasValue(1);
        assertThat(b).hasValue(1);
    }

    @Test
    void aCancelledWatchIsNotWokenAndAFailedMarkLeavesNothingBehind() throws Exception {
        AtomicInteger woken = new AtomicInteger();
        waiters.watch("k", woken::incrementAndGet, () -> true).run();
        waiters.wake("k");
        assertThat(woken).hasValue(0);
        assertThatThrownBy(() -> waiters.watch("k", woken::incrementAndGet, () -> {
            throw new IllegalStateException("mark failed");
        })).hasMessage("mark failed");
        waiters.wake("k");
        assertThat(woken).hasValue(0);
    }

    @Test
    void aLinesWatcherIsToldEveryWithdrawalWithItsOwnerUntilCancelledAndNullWhenHearingStops() throws Exception {
        List<String> told = new CopyOnWriteArrayList<>();
        AtomicInteger woken = new AtomicInteger();
        Runnable cancel = waiters.watchWithdrawals("line", told::add);
        waiters.watch("line", woken::incrementAndGet, () -> true);
        waiters.withdrawn("line", "first");
        waiters.withdrawn("other line", "elsewhere");
        waiters.withdrawn("line", "second");
        assertThat(told).as("withdrawals told, not one-shot").containsExactly("first", "second");
        assertThat(woken).as("a one-shot watcher of the line is woken by a withdrawal").hasValue(1);
        cancel.run();
        waiters.withdrawn("line", "third");
        assertThat(told).as("told after the cancel").containsExactly("first", "second");

        List<String> ended = new CopyOnWriteArrayList<>();
        waiters.watchWithdrawals("line", ended::add);
        waiters.wakeAll();
        waiters.withdrawn("line", "after");
        assertThat(ended).as("told null once when hearing stops, then nothing").containsExactly((String) null);
    }
}
