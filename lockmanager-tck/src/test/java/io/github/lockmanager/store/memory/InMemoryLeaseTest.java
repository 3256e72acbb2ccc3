package io.github.lockmanager.store.memory;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.testing.support.InstrumentedStore;
import io.github.lockmanager.testing.support.ManualTimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Leases (the manager's, and those of locks taken with a lease of their own), renewal and loss on the in-memory
 * store with a manual clock: time moves only when the test says, so
 * the boundaries are exact. The managers' threads still tick in real time, every abort poll interval (20 ms
 * here); what they decide depends only on the manual clock.
 */
class InMemoryLeaseTest {
    private static final Duration LEASE = Duration.ofSeconds(60);
    private static final Duration RENEWAL = Duration.ofSeconds(20);
    /** A lease of a lock's own, shorter than the manager's. */
    private static final Duration SHORT = Duration.ofSeconds(3);

    private final ManualTimeSource time = new ManualTimeSource();
    private final InMemoryLockStore shared = new InMemoryLockStore(time);
    private final List<LockManager> managers = new ArrayList<>();
    private final ExecutorService holder = Executors.newSingleThreadExecutor(r -> new Thread(r, "holder"));

    @AfterEach
    void close() {
        holder.shutdownNow();
        managers.forEach(LockManager::close);
    }

    private LockManager node(String nodeId, InstrumentedStore store, BlockingQueue<LockLossReason> losses)
            throws LockManagerException {
        LockManager manager = LockManagerBuilder.newBuilder().store(store).nodeId(nodeId).timeSource(time)
                .lease(LEASE).renewalInterval(RENEWAL).abortPollInterval(Duration.ofMillis(20)).renewalBatchSize(10)
                .lossListener((lock, holder, reason) -> losses.add(reason)).build();
        managers.add(manager);
        return manager;
    }

    private LockManager node(String nodeId, InstrumentedStore store) throws LockManagerException {
        return node(nodeId, store, new LinkedBlockingQueue<>());
    }

    @Test
    void aStoppedNodesLockIsFreeExactlyOneLeaseAfterItsLastRenewal() throws Exception {
        InstrumentedStore cutOff = new InstrumentedStore(shared);
        LockManager a = node("a", cutOff);
        LockManager b = node("b", new InstrumentedStore(shared));
        a.lock("job");
        cutOff.setUnreachable(true);

        time.advance(LEASE.minusMillis(1));
        assertThatThrownBy(() -> b.lock("job")).isInstanceOf(AlreadyLockedException.class);
        time.advance(Duration.ofMillis(1));
        assertThat(b.lock("job").isNewLock()).isTrue();
    }

    @Test
    void renewalKeepsALockAliveForLongerThanItsLease() throws Exception {
        InstrumentedStore store = new InstrumentedStore(shared);
        LockManager a = node("a", store);
        LockManager b = node("b", new InstrumentedStore(shared));
        LockResource lock = a.lock("job");

        for (int cycle = 1; cycle <= 6; cycle++) {
            time.advance(RENEWAL);
            int expected = cycle;
            await().atMost(Duration.ofSeconds(10)).until(() -> store.calls("renew") >= expected);
        }

        assertThat(b.isLocked("job")).as("held two leases after it was taken").isTrue();
        assertThat(lock.isLost()).isFalse();
    }

    @Test
    void renewalCostsOneStoreCallPerBatch() throws Exception {
        InstrumentedStore store = new InstrumentedStore(shared);
        LockManager a = node("a", store);
        for (int i = 0; i < 25; i++) {
            a.lock("job-" + i);
        }

        time.advance(RENEWAL);
        await().atMost(Duration.ofSeconds(10)).until(() -> shared.list().stream()
                .allMatch(r -> r.expirationTime().equals(time.now().plus(LEASE))));

        System.out.printf("25 held locks, batch size 10: %d renew calls in one cycle%n", store.calls("renew"));
        assertThat(store.calls("renew")).isEqualTo(3);
    }

    @Test
    void anUnreachableStoreLosesTheLockBeforeItsLeaseEnds() throws Exception {
        InstrumentedStore cutOff = new InstrumentedStore(shared);
        BlockingQueue<LockLossReason> losses = new LinkedBlockingQueue<>();
        LockManager a = node("a", cutOff, losses);
        // held by an idle pool thread: the loss interrupts the holder, which must not be the test's own thread
        LockResource lock = holder.submit(() -> a.lock("job")).get();
        cutOff.setUnreachable(true);

        // declared lost a fifth of the lease before its end: not at 75 %, but by 81 %
        time.advance(LEASE.multipliedBy(75).dividedBy(100));
        long calls = cutOff.totalCalls();
        await().atMost(Duration.ofSeconds(10)).until(() -> cutOff.totalCalls() >= calls + 5);
        assertThat(lock.isLost()).as("not lost while the lease has time left").isFalse();

        time.advance(LEASE.multipliedBy(6).dividedBy(100));
        assertThat(losses.poll(10, TimeUnit.SECONDS)).isEqualTo(LockLossReason.RENEWAL_UNCONFIRMED);
        assertThat(lock.isLost()).isTrue();
        assertThat(shared.read(LockKey.dc("default", "default", "job"))).as("the store still had it when told")
                .isPresent();

        cutOff.setUnreachable(false);
        await().atMost(Duration.ofSeconds(10)).until(() -> shared.read(LockKey.dc("default", "default", "job")).isEmpty());
        assertThat(a.lock("job").isNewLock()).as("the manager works again once the store is back").isTrue();
    }

    @Test
    void fencingTokensKeepIncreasingAcrossExpiry() throws Exception {
        InstrumentedStore cutOff = new InstrumentedStore(shared);
        LockManager a = node("a", cutOff);
        LockManager b = node("b", new InstrumentedStore(shared));
        long first = a.lock("job").getFencingToken();
        cutOff.setUnreachable(true);
        time.advance(LEASE);
        assertThat(b.lock("job").getFencingToken()).isGreaterThan(first);
    }

    /** A renewal or abort mark replaces a record's entry; a release racing with it must still remove the record. */
    @Test
    void aReleaseRacingRenewalsAndAbortMarksStillRemovesTheRecord() throws Exception {
        LockKey key = LockKey.xdc("race", "k");
        AtomicReference<LockHandle> current = new AtomicReference<>();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService meddlers = Executors.newFixedThreadPool(2);
        try {
            meddlers.submit(() -> {
                while (!stop.get()) {
                    LockHandle handle = current.get();
                    if (handle != null) {
                        shared.renew(List.of(handle), LEASE);
                    }
                }
                return null;
            });
            meddlers.submit(() -> {
                while (!stop.get()) {
                    shared.markAbort(key);
                }
                return null;
            });
            for (int i = 0; i < 20_000; i++) {
                LockHandle handle = new LockHandle(key, "owner-" + i);
                assertThat(shared.acquire(LockRequest.of(handle, "n", "t", LockMode.EXCLUSIVE), LEASE)
                        .isAcquired()).as("acquisition %d", i).isTrue();
                current.set(handle);
                assertThat(shared.release(handle)).as("release %d", i).isTrue();
                assertThat(shared.read(key)).as("record after release %d", i).isEmpty();
            }
        } finally {
            stop.set(true);
            meddlers.shutdown();
            assertThat(meddlers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    private Instant expiration(String key) {
        return shared.read(LockKey.dc("default", "default", key)).map(LockRecord::expirationTime).orElseThrow();
    }

    @Test
    void aStoppedNodesLockWithALeaseOfItsOwnIsFreeOneOfThoseLeasesAfterItsLastRenewal() throws Exception {
        InstrumentedStore cutOff = new InstrumentedStore(shared);
        LockManager a = node("a", cutOff);
        LockManager b = node("b", new InstrumentedStore(shared));
        a.lock(LockSpec.of("job").at(LockLevel.DC).lease(SHORT));
        a.lock("other");
        cutOff.setUnreachable(true);

        time.advance(SHORT.minusMillis(1));
        assertThatThrownBy(() -> b.lock("job")).isInstanceOf(AlreadyLockedException.class);
        time.advance(Duration.ofMillis(1));
        assertThat(b.lock("job").isNewLock()).isTrue();
        assertThat(b.isLocked("other")).as("the manager's lease still holds the other lock").isTrue();
    }

    @Test
    void aShortLeaseIsRenewedOnItsOwnScheduleWithItsOwnLease() throws Exception {
        InstrumentedStore store = new InstrumentedStore(shared);
        LockManager a = node("a", store);
        LockManager b = node("b", new InstrumentedStore(shared));
        LockResource lock = a.lock(LockSpec.of("job").at(LockLevel.DC).lease(SHORT));

        // renewed every third of its lease, since the manager's 20 s would let it run out
        for (int cycle = 1; cycle <= 6; cycle++) {
            time.advance(SHORT.dividedBy(3));
            int expected = cycle;
            await().atMost(Duration.ofSeconds(10)).until(() -> store.calls("renew") >= expected);
            await().atMost(Duration.ofSeconds(10)).until(() -> expiration("job").equals(time.now().plus(SHORT)));
        }

        assertThat(b.isLocked("job")).as("held two of its leases after it was taken").isTrue();
        assertThat(lock.isLost()).isFalse();
    }

    @Test
    void locksOfOneLeaseRenewInOneBatchAndEachLeaseInItsOwn() throws Exception {
        InstrumentedStore store = new InstrumentedStore(shared);
        LockManager a = node("a", store);
        Duration longer = Duration.ofSeconds(90);
        for (int i = 0; i < 5; i++) {
            a.lock("default-" + i);
            a.lock(LockSpec.of("longer-" + i).at(LockLevel.DC).lease(longer));
        }

        // a 90 s lease is renewed at the manager's 20 s interval, in the same cycle as the default one
        time.advance(RENEWAL);
        await().atMost(Duration.ofSeconds(10)).until(() -> store.calls("renew") >= 2);

        assertThat(store.renewBatchSizes()).containsExactly(5, 5);
        for (int i = 0; i < 5; i++) {
            assertThat(expiration("default-" + i)).isEqualTo(time.now().plus(LEASE));
            assertThat(expiration("longer-" + i)).isEqualTo(time.now().plus(longer));
        }
    }

    @Test
    void locksOfEveryLeaseAreCheckedForAbortsInTheSameBatches() throws Exception {
        InstrumentedStore store = new InstrumentedStore(shared);
        LockManager a = node("a", store);
        for (int i = 0; i < 5; i++) {
            a.lock("default-" + i);
            a.lock(LockSpec.of("longer-" + i).at(LockLevel.DC).lease(Duration.ofSeconds(90)));
        }

        // no renewal is due while time stands still: each keeper tick (20 ms) checks all ten in one call; the
        // cycles after the first that saw all ten cannot have started before the last lock was taken
        await().atMost(Duration.ofSeconds(10)).until(() -> store.checkBatchSizes().contains(10));
        int before = store.checkBatchSizes().size();
        await().atMost(Duration.ofSeconds(10)).until(() -> store.checkBatchSizes().size() >= before + 3);

        List<Integer> sizes = store.checkBatchSizes();
        assertThat(sizes.subList(before, sizes.size())).containsOnly(10);
    }

    @Test
    void anUnreachableStoreLosesAShortLeaseLockBeforeItsOwnLeaseEnds() throws Exception {
        InstrumentedStore cutOff = new InstrumentedStore(shared);
        BlockingQueue<LockLossReason> losses = new LinkedBlockingQueue<>();
        LockManager a = node("a", cutOff, losses);
        LockResource lock = holder.submit(() -> a.lock(LockSpec.of("job").at(LockLevel.DC).lease(SHORT))).get();
        LockResource other = a.lock("other");
        cutOff.setUnreachable(true);

        time.advance(SHORT.multipliedBy(75).dividedBy(100));
        long calls = cutOff.totalCalls();
        await().atMost(Duration.ofSeconds(10)).until(() -> cutOff.totalCalls() >= calls + 5);
        assertThat(lock.isLost()).as("not lost while its lease has time left").isFalse();

        time.advance(SHORT.multipliedBy(6).dividedBy(100));
        assertThat(losses.poll(10, TimeUnit.SECONDS)).isEqualTo(LockLossReason.RENEWAL_UNCONFIRMED);
        assertThat(lock.isLost()).isTrue();
        assertThat(other.isLost()).as("the manager's 60 s lease has most of its time left").isFalse();
    }

    @Test
    void aReentryKeepsTheLeaseTheLockWasTakenWith() throws Exception {
        InstrumentedStore store = new InstrumentedStore(shared);
        LockManager a = node("a", store);
        a.lock(LockSpec.of("job").at(LockLevel.DC).lease(SHORT));
        a.lock("job");
        a.lock(LockSpec.of("job").at(LockLevel.DC).lease(Duration.ofMinutes(5)));

        assertThat(store.calls("acquire")).as("re-entries cost no store call").isEqualTo(1);
        time.advance(SHORT.dividedBy(3));
        await().atMost(Duration.ofSeconds(10)).until(() -> store.calls("renew") >= 1);
        assertThat(expiration("job")).isEqualTo(time.now().plus(SHORT));
    }

    @Test
    void sharedLocksAndEveryStepOfAPathTakeTheLeaseAskedFor() throws Exception {
        LockManager a = node("a", new InstrumentedStore(shared));
        a.lock(LockSpec.shared("report").at(LockLevel.DC).lease(SHORT));
        a.lock(LockSpec.path("catalog/books", LockMode.EXCLUSIVE).at(LockLevel.DC).lease(SHORT));

        assertThat(shared.list()).hasSize(3).allSatisfy(record ->
                assertThat(record.expirationTime()).isEqualTo(time.now().plus(SHORT)));
    }

    @Test
    void aLeaseOutOfRangeIsRefusedNamingWhatIsWrong() throws Exception {
        LockManager a = node("a", new InstrumentedStore(shared));

        assertThatThrownBy(() -> a.lock(LockSpec.of("job").at(LockLevel.DC).lease(Duration.ofMillis(10))))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("lease must be at least 100ms, was PT0.01S");
        assertThatThrownBy(() -> a.lock(LockSpec.shared("job").at(LockLevel.DC).lease(Duration.ofDays(2))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease must be at most PT24H");
        assertThatThrownBy(() -> a.lock(LockSpec.path("a/b", LockMode.SHARED).at(LockLevel.DC).lease(null)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease");
        assertThat(shared.list()).as("nothing was taken").isEmpty();
    }
}
