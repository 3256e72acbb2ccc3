package io.github.lockmanager.store.support;

import org.junit.jupiter.api.Test;

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
}
