package io.github.lockmanager.store.support;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The waiters of announced releases: registered before they are marked, woken by key or all at once. */
class ReleaseWaitersTest {
    private final ReleaseWaiters waiters = new ReleaseWaiters();

    @Test
    void aReleaseHeardWhileTheWaiterMarksItselfIsNotMissed() throws Exception {
        long start = System.nanoTime();
        // the release is heard between the mark's write and the wait: the waiter must not sleep its timeout
        assertThat(waiters.await("k", Duration.ofMinutes(1), () -> {
            waiters.wake("k");
            return true;
        })).isTrue();
        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(30));
    }

    @Test
    void aKeyThatIsNotHeldIsNotWaitedFor() throws Exception {
        assertThat(waiters.await("k", Duration.ofMinutes(1), () -> false)).isFalse();
    }

    @Test
    void aWakeOfOneKeyLeavesTheOthersWaitingAndWakeAllWakesThem() throws Exception {
        CountDownLatch marked = new CountDownLatch(2);
        CompletableFuture<Boolean> a = CompletableFuture.supplyAsync(() -> waitFor("a", marked));
        CompletableFuture<Boolean> b = CompletableFuture.supplyAsync(() -> waitFor("b", marked));
        assertThat(marked.await(30, TimeUnit.SECONDS)).isTrue();
        waiters.wake("a");
        assertThat(a.get(30, TimeUnit.SECONDS)).isTrue();
        assertThat(b).isNotDone();
        waiters.wakeAll();
        assertThat(b.get(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aWaitEndsAtItsTimeoutWithoutARelease() throws Exception {
        assertThat(waiters.await("k", Duration.ofMillis(20), () -> true)).isTrue();
    }

    private boolean waitFor(String key, CountDownLatch marked) {
        try {
            return waiters.await(key, Duration.ofMinutes(1), () -> {
                marked.countDown();
                return true;
            });
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
