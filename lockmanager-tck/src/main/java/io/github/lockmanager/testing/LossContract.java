package io.github.lockmanager.testing;

import io.github.lockmanager.testing.support.InstrumentedStore;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.Lock;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.LockStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * How a holder learns that its lock ends against its will, on a store, in real time: aborts from its node and from
 * others, leases that run out when a node stops renewing or the store stops confirming, ambiguous answers, interrupts
 * during store calls, shutdown, and force-release. Every store runs it through {@link StoreTck}.
 */
public abstract class LossContract extends ContractNodes {
    @Test
    void abortOnTheSameNodeInterruptsTheHolderAtOnce() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        HeldElsewhere held = holdInThread(a, "job");

        a.abort("job");

        held.thread.join(10_000);
        assertThat(held.interrupted).as("holder interrupted").isTrue();
        assertThat(b.isLocked("job")).as("released by the holder's try-with-resources").isFalse();
    }

    @Test
    void abortFromAnotherNodeInterruptsTheHolderWithinThePollInterval() throws Exception {
        // renewal every 10 s: only the abort poll can deliver the abort in time
        LockManager a = node("a");
        LockManager b = node("b");
        HeldElsewhere held = holdInThread(a, "job");

        b.abort("job");
        long asked = System.nanoTime();

        await().atMost(Duration.ofSeconds(5)).untilTrue(held.interrupted);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
        System.out.printf("remote abort delivered after %d ms (abort poll %d ms)%n", millis, ABORT_POLL.toMillis());
        assertThat(millis).as("well before the first renewal").isLessThan(LEASE.dividedBy(3).toMillis());
        held.thread.join(10_000);
        assertThat(b.isLocked("job")).isFalse();
    }

    @Test
    void abortOfAFreeKeyDoesNothing() throws Exception {
        LockManager a = node("a");
        a.abort("free");
        assertThat(a.isLocked("free")).isFalse();
        assertThat(a.lock("free").getLock().getStatus()).isEqualTo(LockStatus.RUNNING);
    }

    @Test
    void aLockWhoseNodeStopsRenewingIsFreeAfterTheLeaseAndItsHolderIsTold() throws Exception {
        // 3 s: the holder is told a fifth of the lease early, 600 ms, which a loaded machine's scheduling never eats
        Duration lease = Duration.ofSeconds(3);
        InstrumentedStore cutOff = new InstrumentedStore(store());
        BlockingQueue<LockLossReason> losses = new LinkedBlockingQueue<>();
        LockManager a = start(nodeBuilder("a", cutOff).lease(lease).renewalInterval(Duration.ofMillis(500))
                .lossListener((lock, holder, reason) -> losses.add(reason)));
        LockManager b = node("b");
        HeldElsewhere held = holdInThread(a, "job");

        cutOff.setUnreachable(true);
        long cut = System.nanoTime();
        assertThatThrownBy(() -> b.lock("job")).isInstanceOf(AlreadyLockedException.class);

        await().atMost(Duration.ofSeconds(10)).untilTrue(held.interrupted);
        long toldAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cut);
        boolean stillHeldWhenTold = b.isLocked("job");
        await().atMost(Duration.ofSeconds(10)).pollInSameThread()
                .ignoreExceptionsInstanceOf(AlreadyLockedException.class).until(() -> b.lock("job") != null);
        long freeAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cut);
        System.out.printf("cut off: holder told after %d ms, lock free after %d ms (lease %d ms)%n",
                toldAfter, freeAfter, lease.toMillis());

        assertThat(held.resource.isLost()).isTrue();
        assertThat(losses.poll(10, TimeUnit.SECONDS)).isEqualTo(LockLossReason.RENEWAL_UNCONFIRMED);
        assertThat(stillHeldWhenTold).as("the holder is told before its lease ends").isTrue();
        assertThat(freeAfter).as("free no earlier than one lease after the last renewal")
                .isGreaterThanOrEqualTo(lease.minusMillis(500).toMillis());
    }

    @Test
    void aLockWithALeaseOfItsOwnIsRenewedWithItAndFreedByIt() throws Exception {
        // the manager's lease is 30 s: only renewal on the lock's own 3 s lease keeps it, and only that lease frees it
        Duration lease = Duration.ofSeconds(3);
        InstrumentedStore cutOff = new InstrumentedStore(store());
        BlockingQueue<LockLossReason> losses = new LinkedBlockingQueue<>();
        LockManager a = start(nodeBuilder("a", cutOff).lossListener((lock, holder, reason) -> losses.add(reason)));
        LockManager b = node("b");
        HeldElsewhere held = holdInThread("holder-job", () -> a.lock(LockSpec.of("job").at(LockLevel.DC).lease(lease)), false);
        assertThat(a.inspect("job", LockLevel.DC)).singleElement().satisfies(lock -> assertThat(
                Duration.between(lock.getLockTime(), lock.getExpirationTime()))
                .isBetween(lease.minusSeconds(1), lease.plusSeconds(1)));

        await().atMost(Duration.ofSeconds(30)).until(() -> cutOff.calls("renew") >= 4);
        assertThat(held.resource.isLost()).as("renewed on its own lease's schedule, past that lease").isFalse();
        assertThatThrownBy(() -> b.lock("job")).isInstanceOf(AlreadyLockedException.class);

        cutOff.setUnreachable(true);
        await().atMost(Duration.ofSeconds(10)).untilTrue(held.interrupted);
        assertThat(losses.poll(10, TimeUnit.SECONDS)).isEqualTo(LockLossReason.RENEWAL_UNCONFIRMED);
        await().atMost(Duration.ofSeconds(15)).pollInSameThread()
                .ignoreExceptionsInstanceOf(AlreadyLockedException.class).until(() -> b.lock("job") != null);
    }

    @Test
    void aLockTheStoreNoLongerConfirmsIsLostAndItsReleaseTouchesNothing() throws Exception {
        InstrumentedStore store = new InstrumentedStore(store());
        BlockingQueue<LockLossReason> losses = new LinkedBlockingQueue<>();
        LockManager a = start(nodeBuilder("a", store).lease(Duration.ofSeconds(3)).renewalInterval(Duration.ofMillis(200))
                .lossListener((lock, holder, reason) -> losses.add(reason)));
        HeldElsewhere held = holdInThread(a, "job");

        store.setRenewalsLost(true);

        await().atMost(Duration.ofSeconds(10)).untilTrue(held.interrupted);
        held.thread.join(10_000);
        assertThat(held.resource.isLost()).isTrue();
        assertThat(losses.poll(10, TimeUnit.SECONDS)).isEqualTo(LockLossReason.NOT_OWNED);
        assertThat(store.calls("release")).as("a lost lock's close writes nothing").isZero();
    }

    @Test
    void anAmbiguousAcquireLeavesNoOrphanLock() throws Exception {
        InstrumentedStore store = new InstrumentedStore(store());
        LockManager a = start(nodeBuilder("a", store).abortPollInterval(Duration.ofMillis(50)));
        LockManager b = node("b");
        store.makeNextAcquireAmbiguous();

        assertThatThrownBy(() -> a.lock("job")).isInstanceOfSatisfying(LockManagerException.class,
                e -> assertThat(e.getErrorCode()).isEqualTo(LockManagerException.ErrorCode.CONNECTION_ERROR));

        // the lease is 30 s: only the manager's own clean-up can free the key this soon
        await().atMost(Duration.ofSeconds(10)).until(() -> !b.isLocked("job"));
        assertThat(a.lock("job").isNewLock()).isTrue();
    }

    @Test
    void aPendingInterruptIsLeftSetByEveryCall() throws Exception {
        LockManager a = node("a");
        Thread.currentThread().interrupt();
        try {
            try (LockResource lock = a.lock("job")) {
                assertThat(Thread.currentThread().isInterrupted()).as("after lock()").isTrue();
                assertThat(a.isLocked("job")).isTrue();
                assertThat(Thread.currentThread().isInterrupted()).as("after isLocked()").isTrue();
                assertThat(a.getLocks()).extracting(Lock::getKey).containsExactly("job");
                assertThat(Thread.currentThread().isInterrupted()).as("after getLocks()").isTrue();
                a.abort("other");
                assertThat(Thread.currentThread().isInterrupted()).as("after abort()").isTrue();
            }
            assertThat(Thread.currentThread().isInterrupted()).as("after close()").isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(a.isLocked("job")).as("the lock was released although the flag was set").isFalse();
    }

    @Test
    void anAbortReachesAHolderThatIsBusyWithTheStore() throws Exception {
        LockManager a = node("a");
        for (int trial = 0; trial < 20; trial++) {
            String key = "job" + trial;
            CountDownLatch holding = new CountDownLatch(1);
            AtomicBoolean sawInterrupt = new AtomicBoolean();
            AtomicReference<Exception> failure = new AtomicReference<>();
            Thread holder = spawn("busy-holder-" + trial, () -> {
                try (LockResource job = a.lock(key)) {
                    holding.countDown();
                    for (int side = 0; !Thread.currentThread().isInterrupted(); side++) {
                        try (LockResource sideLock = a.lock(key + "-side" + side % 4)) {
                            // store calls on every turn: the abort's interrupt lands in one of them
                        } catch (LockManagerException e) {
                            if (!Thread.currentThread().isInterrupted()) {
                                throw e;
                            }
                        }
                    }
                    sawInterrupt.set(true);
                } catch (Exception e) {
                    failure.set(e);
                }
            });
            assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
            a.abort(key);
            holder.join(30_000);
            assertThat(failure.get()).as("trial %d", trial).isNull();
            assertThat(sawInterrupt).as("the holder of trial %d saw the abort", trial).isTrue();
        }
    }

    @Test
    void anAcquisitionSlowerThanItsLeaseIsReleasedAndReported() throws Exception {
        InstrumentedStore slow = new InstrumentedStore(store());
        Duration lease = Duration.ofSeconds(1);
        LockManager a = start(nodeBuilder("a", slow).lease(lease));
        LockManager b = node("b");
        slow.delayAcquireAnswers(lease);

        assertThatThrownBy(() -> a.lock("job")).isInstanceOfSatisfying(LockManagerException.class, e -> {
            assertThat(e.getErrorCode()).isEqualTo(LockManagerException.ErrorCode.CONNECTION_ERROR);
            assertThat(e).hasMessageContaining("too close to its lease of 1000 ms");
        });
        assertThat(slow.calls("release")).as("the late grant was given back at once").isEqualTo(1);
        assertThat(b.isLocked("job")).isFalse();
        slow.delayAcquireAnswers(Duration.ZERO);
        try (LockResource lock = a.lock("job")) {
            assertThat(lock.isNewLock()).isTrue();
        }
    }

    @Test
    void closeInterruptsHoldersReleasesEverythingAndStopsItsThreads() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        List<HeldElsewhere> held = new ArrayList<>();
        for (String key : List.of("one", "two", "three")) {
            held.add(holdInThread(a, key));
        }
        a.lock("main-thread-lock");

        a.close();

        for (HeldElsewhere h : held) {
            assertThat(h.interrupted).isTrue();
        }
        assertThat(b.getLocks()).isEmpty();
        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                .noneMatch(name -> name.startsWith("lockmanager-a-"));
        assertThatThrownBy(() -> a.lock("job")).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> a.unlock("job")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> a.isLocked("job")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(a::getLocks).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> a.abort("job")).isInstanceOf(IllegalStateException.class);
        a.close();
    }

    @Test
    void aHolderThatIgnoresTheShutdownStillLosesItsLockInTheStore() throws Exception {
        LockManager a = start(nodeBuilder("a", new InstrumentedStore(store())).shutdownTimeout(Duration.ZERO));
        LockManager b = node("b");
        LockResource mine = a.lock("job");

        a.close();

        assertThat(b.isLocked("job")).isFalse();
        mine.close();
        assertThat(mine.isClosed()).isTrue();
    }

    @Test
    void forceReleaseEndsAHoldOnAnotherNodeWhichLearnsItAsNotOwned() throws Exception {
        BlockingQueue<LockLossReason> losses = new LinkedBlockingQueue<>();
        LockManager a = start(nodeBuilder("a", new InstrumentedStore(store()))
                .lossListener((lock, holder, reason) -> losses.add(reason)));
        LockManager b = node("b");
        HeldElsewhere held = holdInThread(a, "job", true);
        long token = held.resource.getFencingToken();
        assertThat(b.inspect("job", LockLevel.DC)).singleElement().satisfies(lock -> {
            assertThat(lock.getOwnerNodeId()).isEqualTo("a");
            assertThat(lock.getHolderThreadName()).isEqualTo("holder-job");
            assertThat(lock.getFencingToken()).isEqualTo(token);
        });

        assertThat(b.forceRelease("job", LockLevel.DC, "ops-alice")).isEqualTo(1);

        await().atMost(Duration.ofSeconds(30)).until(held.resource::isLost);
        assertThat(losses.poll(30, TimeUnit.SECONDS)).isEqualTo(LockLossReason.NOT_OWNED);
        await().atMost(Duration.ofSeconds(30)).untilTrue(held.interrupted);
        try (LockResource next = b.lock("job")) {
            assertThat(next.getFencingToken()).isGreaterThan(token);
        }
        assertThat(b.forceRelease("job", LockLevel.DC, "ops-alice")).as("a free key").isZero();
        assertThat(b.inspect("job", LockLevel.DC)).isEmpty();
        held.letGo.countDown();
    }

    @Test
    void forceReleaseOnTheHoldersOwnNodeTellsItAtOnce() throws Exception {
        LockManager a = node("a");
        LockResource held = a.lock("job");
        assertThatThrownBy(() -> a.forceRelease("job", LockLevel.DC, " ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("requestedBy");
        assertThat(held.isLost()).isFalse();
        assertThat(a.forceRelease("job", LockLevel.DC, "ops-bob")).isEqualTo(1);
        assertThat(held.isLost()).isTrue();
        assertThat(Thread.interrupted()).as("the holder, this thread, was interrupted").isTrue();
        assertThat(a.lock("job").isNewLock()).isTrue();
    }
}
