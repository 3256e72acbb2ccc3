package io.github.lockmanager.store.memory;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.TimeSource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.testing.support.ManualTimeSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How few clock readings the in-memory store takes, and that each one it skips changes nothing anyone relies on: an
 * acquisition is judged at the reading its manager sent it with, a release at the holder's own lock time, and a fresh
 * lock and unlock through a manager on the store's clock read that clock once (a reading took 24 to 30 ns on the
 * benchmark machines, a tenth of the whole cycle).
 */
class InMemoryClockReadingsTest {
    private static final Duration LEASE = Duration.ofSeconds(10);

    private final ManualTimeSource time = new ManualTimeSource();
    private final InMemoryLockStore store = new InMemoryLockStore(time);
    private final LockKey key = LockKey.dc("farm", "client", "job");

    @Test
    void aLeaseSentAtAReadingRunsFromThatReadingNotFromWhenTheStoreSawIt() {
        long sentAt = time.nanoTime();
        Instant sentAtWall = time.now();
        time.advance(Duration.ofSeconds(4));

        LockRecord granted = store.acquire(request("late", 1), LEASE, sentAt).record();
        assertThat(granted.expirationTime()).isEqualTo(granted.lockTime().plus(LEASE));
        assertThat(Duration.between(sentAtWall, granted.expirationTime())).isLessThanOrEqualTo(LEASE);

        time.advance(LEASE.minusSeconds(4).minusMillis(1));
        assertThat(store.acquire(request("other", 2), LEASE).isAcquired()).as("1 ms before the lease ends").isFalse();
        time.advance(Duration.ofMillis(1));
        assertThat(store.read(key)).as("the store's own reading would have kept it 4 s longer").isEmpty();
        assertThat(store.acquire(request("other", 2), LEASE).isAcquired()).isTrue();
    }

    @Test
    void aHolderIsJudgedAtTheReadingTheRequestWasSentAt() {
        store.acquire(request("first", 1), LEASE);
        long sentBeforeItsEnd = time.nanoTime() + LEASE.toNanos() - 1;
        time.advance(LEASE.plusSeconds(1));

        AcquireResult refused = store.acquire(request("second", 2), LEASE, sentBeforeItsEnd);

        assertThat(refused.isAcquired()).as("live at the reading, though not by the time the store saw it").isFalse();
        assertThat(refused.record().nodeId()).isEqualTo("first");
        assertThat(store.acquire(request("second", 2), LEASE).isAcquired()).as("judged by the store's own reading")
                .isTrue();
    }

    @Test
    void aReleaseTakesOutTheHoldersOwnEntryAfterItsLeaseRanOutWhileNobodyTookTheKey() throws Exception {
        LockRecord held = store.acquire(request("holder", 1), LEASE).record();
        time.advance(LEASE.plusSeconds(1));

        assertThat(store.release(held.handle())).isTrue();
        assertThat(store.inspect(key)).isEmpty();
        assertThat(store.release(held.handle())).as("a second release").isFalse();
    }

    @Test
    void aReleaseAfterSomeoneElseTookTheKeyLeavesTheirHoldAlone() {
        LockRecord old = store.acquire(request("old", 1), LEASE).record();
        time.advance(LEASE.plusSeconds(1));
        LockRecord taker = store.acquire(request("new", 2), LEASE).record();

        assertThat(store.release(old.handle())).isFalse();
        assertThat(store.read(key)).contains(taker);
    }

    @Test
    void aFreshLockAndUnlockReadTheClockOnceOnTheCallersThread() throws Exception {
        Thread caller = Thread.currentThread();
        AtomicInteger readings = new AtomicInteger();
        TimeSource counted = new TimeSource() {
            @Override
            public long nanoTime() {
                if (Thread.currentThread() == caller) {
                    readings.incrementAndGet();
                }
                return time.nanoTime();
            }

            @Override
            public Instant now() {
                return time.now();
            }
        };
        try (LockManager manager = LockManagerBuilder.newBuilder().store(new InMemoryLockStore(counted))
                .timeSource(counted).nodeId("node").build()) {
            readings.set(0);
            manager.lock("job");
            manager.unlock("job");

            assertThat(readings).hasValue(1);
        }
    }

    private LockRequest request(String node, long serial) {
        return LockRequest.of(LockHandle.of(key, node + ":", serial), node, "thread", LockMode.EXCLUSIVE);
    }
}
