package io.github.lockmanager.testing;

import io.github.lockmanager.testing.support.InstrumentedStore;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.Lock;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.TaskLock;
import io.github.lockmanager.TaskOptions;
import io.github.lockmanager.spi.LockKey;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The lock manager's behaviour on a store while locks are held and given back, in real time: holds and re-entry,
 * refusals, keys and levels, listing, fencing tokens, locks kept held at least, and locks of dead threads. Every store
 * runs it by subclassing and naming the store; {@link LossContract} covers aborts, losses and shutdown. Each test
 * uses its own client id, so tests may share one store (and one table) without seeing each other. Nodes are
 * managers on the same store, each behind its own {@link InstrumentedStore}.
 */
public abstract class LockManagerContract extends ContractNodes {
    @Test
    void reentryAddsHoldsWithoutStoreCalls() throws Exception {
        InstrumentedStore store = new InstrumentedStore(store());
        LockManager a = start(nodeBuilder("a", store));
        LockManager b = node("b");

        LockResource first = a.lock("job");
        long callsAfterFirst = store.totalCalls();
        LockResource second = a.lock("job");
        LockResource third = a.lock("job");

        assertThat(store.totalCalls()).as("store calls for two re-entries").isEqualTo(callsAfterFirst);
        assertThat(first.isNewLock()).isTrue();
        assertThat(second.isNewLock()).isFalse();
        assertThat(third.getFencingToken()).isEqualTo(first.getFencingToken());
        third.close();
        second.close();
        assertThat(b.isLocked("job")).as("locked after releasing 2 of 3 holds").isTrue();
        first.close();
        assertThat(b.isLocked("job")).as("locked after releasing every hold").isFalse();
    }

    @Test
    void aLockClosedHeldAtLeastStaysLockedForEveryNodeUntilThen() throws Exception {
        // the 30 s lease outlasts the time kept: the keeper releases the record when the time has come
        assertKeptLocked(node("a"), node("b"), Duration.ofSeconds(3));
    }

    @Test
    void aLockClosedHeldAtLeastBeyondItsLeaseHasTheLeaseExtended() throws Exception {
        LockManager a = start(nodeBuilder("a", new InstrumentedStore(store())).lease(Duration.ofSeconds(1)));
        assertKeptLocked(a, node("b"), Duration.ofSeconds(3));
    }

    /** {@code a} locks "job" and closes it held at least {@code atLeast}: locked for both nodes until then. */
    private static void assertKeptLocked(LockManager a, LockManager b, Duration atLeast) throws Exception {
        long acquiredAt = System.nanoTime();
        LockResource job = a.lock("job");

        job.closeHeldAtLeast(atLeast);

        assertThat(job.isClosed()).isTrue();
        assertThat(a.isLocked("job")).as("still locked after the holder closed it").isTrue();
        Duration refusedAfter = null;
        try {
            b.lock("job").close();
        } catch (AlreadyLockedException expected) {
            refusedAfter = Duration.ofNanos(System.nanoTime() - acquiredAt);
        }
        Duration triedWithin = Duration.ofNanos(System.nanoTime() - acquiredAt);
        if (triedWithin.compareTo(atLeast) < 0) {
            assertThat(refusedAfter).as("another node is refused within the time kept").isNotNull();
        }
        await().atMost(atLeast.plusSeconds(20)).pollInterval(Duration.ofMillis(50))
                .until(() -> tryLock(b, "job"));
        assertThat(Duration.ofNanos(System.nanoTime() - acquiredAt))
                .as("the key was free no earlier than the time kept, give or take the clocks' skew")
                .isGreaterThan(atLeast.minusMillis(300));
    }

    @Test
    void aLockHeldLongerThanTheTimeToKeepIsReleasedAtOnce() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        LockResource first = a.lock("job");
        LockResource reentered = a.lock("job");

        reentered.closeHeldAtLeast(Duration.ofMinutes(5));
        assertThat(b.isLocked("job")).as("one hold is left").isTrue();
        first.closeHeldAtLeast(Duration.ZERO);

        assertThat(b.isLocked("job")).isFalse();
        assertThatThrownBy(() -> a.lock("other").closeHeldAtLeast(Duration.ofDays(2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("atLeast");
        assertThat(b.isLocked("other")).as("a refused time leaves the hold open").isTrue();
    }

    /** Takes and releases {@code key}; {@code false} if it is held elsewhere. */
    private static boolean tryLock(LockManager manager, String key) throws LockException {
        try {
            manager.lock(key).close();
            return true;
        } catch (AlreadyLockedException held) {
            return false;
        }
    }

    @Test
    void unlockGivesBackOneHoldOfTheHoldingThread() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        a.lock("job");
        a.lock("job");
        a.unlock("job");
        assertThat(b.isLocked("job")).isTrue();
        a.unlock("job");
        assertThat(b.isLocked("job")).isFalse();
    }

    @Test
    void closeFromAnotherThreadReleasesTheHold() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        LockResource lock = a.lock("job");
        Thread closer = spawn("closer", lock::close);
        closer.join(10_000);
        assertThat(lock.isClosed()).isTrue();
        assertThat(b.isLocked("job")).isFalse();
        lock.close();
        assertThat(b.lock("job").isNewLock()).as("double close changed nothing").isTrue();
    }

    @Test
    void staleResourceNeverReleasesANewerLock() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        LockResource old = a.lock("job");
        a.unlock("job");
        LockResource newer = a.lock("job");
        assertThat(newer.isNewLock()).isTrue();

        old.close();

        assertThat(b.isLocked("job")).as("newer lock survives the stale close").isTrue();
        assertThat(newer.getFencingToken()).isGreaterThan(old.getFencingToken());
        newer.close();
        assertThat(b.isLocked("job")).isFalse();
    }

    @Test
    void unlockByANonHolderOnlyWarnsAndChangesNothing() throws Exception {
        // Hippo's contract: an unlock in a finally block by a thread that never got the lock is harmless
        LockManager a = node("a");
        LockManager b = node("b");
        LockResource held = a.lock("job");
        AtomicReference<Throwable> otherThread = new AtomicReference<>();
        AtomicBoolean otherReturned = new AtomicBoolean();
        Thread other = spawn("not-the-holder", () -> {
            try {
                a.unlock("job");
                otherReturned.set(true);
            } catch (Throwable t) {
                otherThread.set(t);
            }
        });
        other.join(10_000);
        assertThat(otherThread.get()).isNull();
        assertThat(otherReturned).isTrue();
        b.unlock("job");
        a.unlock("never-locked");
        assertThat(b.isLocked("job")).isTrue();
        assertThat(a.isLocked("job")).isTrue();
        assertThat(held.isClosed()).isFalse();
        assertThat(held.isLost()).isFalse();
        held.close();
        held.close();
        assertThat(b.isLocked("job")).as("a resource closed twice: no error, released once").isFalse();
    }

    @Test
    void anotherThreadOfTheSameNodeIsRefusedWithoutAStoreCall() throws Exception {
        InstrumentedStore store = new InstrumentedStore(store());
        LockManager a = start(nodeBuilder("a", store));
        holdInThread(a, "job");
        long acquiresBefore = store.calls("acquire");

        assertThatThrownBy(() -> a.lock("job"))
                .isInstanceOfSatisfying(AlreadyLockedException.class, e -> {
                    assertThat(e.isHeldOnThisNode()).isTrue();
                    assertThat(e.getHolderThreadName()).isEqualTo("holder-job");
                });
        assertThat(store.calls("acquire")).isEqualTo(acquiresBefore);
    }

    @Test
    void anotherNodeIsRefusedAndToldWhoHoldsTheLock() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        try (LockResource ignored = a.lock("job")) {
            assertThatThrownBy(() -> b.lock("job"))
                    .isInstanceOfSatisfying(AlreadyLockedException.class, e -> {
                        assertThat(e.isHeldOnThisNode()).isFalse();
                        assertThat(e.getHolderNodeId()).isEqualTo("a");
                        assertThat(e.getKey()).isEqualTo("job");
                    });
        }
        assertThat(b.lock("job").isNewLock()).isTrue();
    }

    @Test
    void levelsAndClientsAreSeparateLockSpaces() throws Exception {
        LockManager a = node("a");
        LockManager otherFarm = start(nodeBuilder("b", new InstrumentedStore(store())).farmId("farm2"));
        LockManager otherClient = start(nodeBuilder("c", new InstrumentedStore(store())).clientId(clientId + "x"));

        a.lock("job", LockLevel.DC);
        a.lock("job", LockLevel.XDC);
        assertThat(otherFarm.lock("job", LockLevel.DC).isNewLock()).as("DC of another farm").isTrue();
        assertThatThrownBy(() -> otherFarm.lock("job", LockLevel.XDC)).isInstanceOf(AlreadyLockedException.class);
        assertThat(otherClient.lock("job", LockLevel.XDC).isNewLock()).as("XDC of another client").isTrue();
        assertThat(a.getLocks()).extracting(Lock::getLevel).containsExactlyInAnyOrder(LockLevel.DC, LockLevel.XDC);
    }

    @Test
    void keysWithSeparatorsAndUnicodeNeverCollide() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        String[] keys = {"#", "a#b", "a#b#", "farm1#" + clientId + "#x", "x", "DC#farm1#" + clientId + "#x",
                "订单-123", "emoji-\uD83D\uDD12", "tab\tand\nnewline", " ", "é".repeat(256)};
        for (String key : keys) {
            assertThat(a.lock(key).isNewLock()).as("fresh lock on %s", key).isTrue();
        }
        assertThat(b.getLocks()).extracting(Lock::getKey).containsExactlyInAnyOrder(keys);
        for (String key : keys) {
            assertThat(b.isLocked(key)).as("locked: %s", key).isTrue();
        }
    }

    @Test
    void theLongestKeyWorksAndInvalidKeysAreRefusedClearly() throws Exception {
        LockManager a = node("a");
        String longest = "k".repeat(LockManager.LOCK_KEY_MAX_LENGTH);
        try (LockResource lock = a.lock(longest)) {
            assertThat(a.getLocks()).extracting(Lock::getKey).containsExactly(longest);
        }
        assertThatThrownBy(() -> a.lock((String) null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null");
        assertThatThrownBy(() -> a.lock((LockSpec) null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lock spec");
        assertThatThrownBy(() -> a.lock("")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty");
        assertThatThrownBy(() -> a.lock(longest + "k")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("257").hasMessageContaining("256");
        assertThatThrownBy(() -> a.lock("nul\u0000")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NUL");
        assertThatThrownBy(() -> a.lock("half\uD83D")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("surrogate");
        assertThatThrownBy(() -> a.lock("job", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("level");
        assertThatThrownBy(() -> a.unlock(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.isLocked("")).isInstanceOf(IllegalArgumentException.class);
        assertThat(a.getLocks()).as("nothing held after refused keys").isEmpty();
    }

    @Test
    void aHoldShowsItsLockAsTheStoreGrantedIt() throws Exception {
        Duration lease = Duration.ofHours(20);
        LockManager a = start(nodeBuilder("a", new InstrumentedStore(store())).lease(lease)
                .renewalInterval(Duration.ofHours(6)));
        try (LockResource held = a.lock("job")) {
            Lock granted = held.getLock();
            assertThat(Duration.between(granted.getLockTime(), granted.getExpirationTime()))
                    .isBetween(lease.minusSeconds(1), lease.plusSeconds(1));
            assertThat(a.inspect("job", LockLevel.DC)).singleElement().satisfies(record -> {
                assertThat(granted.getStatus()).isEqualTo(record.getStatus()).isEqualTo(LockStatus.RUNNING);
                assertThat(granted.getFencingToken()).isEqualTo(record.getFencingToken());
                assertThat(granted.getHolderThreadName()).isEqualTo(record.getHolderThreadName());
            });
        }
    }

    @Test
    void listingLocksChangesNothing() throws Exception {
        // renewal and abort poll far apart: only a query that delivered aborts could interrupt the holder here
        LockManager a = start(nodeBuilder("a", new InstrumentedStore(store())).lease(Duration.ofMinutes(10))
                .abortPollInterval(Duration.ofHours(1)));
        LockManager b = node("b");
        try (LockResource ignored = a.lock("job")) {
            b.abort("job");
            assertThat(a.getLocks()).singleElement().extracting(Lock::getStatus).isEqualTo(LockStatus.ABORT);
            assertThat(Thread.currentThread().isInterrupted()).as("a query delivers no abort").isFalse();
        } finally {
            Thread.interrupted();
        }
    }

    /** A thread of {@code node} that takes {@code key} and ends without unlocking it; returns once it has died. */
    private void dieHolding(LockManager node, String key) throws InterruptedException {
        Thread quitter = spawn("quitter", () -> {
            try {
                node.lock(key);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        quitter.join(10_000);
        assertThat(quitter.isAlive()).isFalse();
    }

    @Test
    void locksOfADeadThreadAreReleasedOnContention() throws Exception {
        // a keeper that ticks every 10 s cannot have reclaimed it first: only the contention path can free it now
        LockManager a = start(nodeBuilder("a", new InstrumentedStore(store())).abortPollInterval(Duration.ofSeconds(10)));
        dieHolding(a, "job");

        LockResource taken = a.lock("job");
        assertThat(taken.isNewLock()).isTrue();
        assertThat(taken.getHolder()).isSameAs(Thread.currentThread());
    }

    @Test
    void locksOfADeadThreadAreReleasedWithoutContention() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        dieHolding(a, "job");
        await().atMost(Duration.ofSeconds(10)).until(() -> !b.isLocked("job"));
    }

    @Test
    void aThreadWaitingForAnotherNodesKeyIsWokenByTheStoresAnnouncementWhereItHasThem() throws Exception {
        LockResource held = node("b").lock("job");
        LockKey key = LockKey.of(LockLevel.DC, "farm1", clientId, "job");
        assumeTrue(announcesReleases(key), () -> "store " + store() + " does not announce releases: its waiters poll");
        // through a wrapper, which passes the wait on, and with a poll interval beyond the test's patience
        InstrumentedStore counted = new InstrumentedStore(store());
        LockManager a = start(nodeBuilder("a", counted).waitPollInterval(Duration.ofMinutes(10)));
        HeldElsewhere waiter = new HeldElsewhere();
        waiter.thread = spawn("waiter", () -> {
            try (LockResource lock = a.waitForLock(LockSpec.of("job"), Duration.ofMinutes(5))) {
                waiter.resource = lock;
                waiter.acquired.countDown();
            } catch (Exception e) {
                waiter.failure.set(e);
                waiter.acquired.countDown();
            }
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> counted.calls("watchRelease") > 0);

        held.close();

        assertThat(waiter.acquired.await(30, TimeUnit.SECONDS)).as("the waiter took the lock").isTrue();
        assertThat(waiter.failure.get()).as("the waiter's failure").isNull();
    }

    /**
     * A holder whose node died announces no release. A waiter on a store that announces releases looks again when that
     * holder's lease ends, as the store showed it at the refusal, not at its next look in case an announcement was
     * missed (here 50 poll intervals of 10 minutes): a thread's wait and a task's on the node that takes over.
     */
    @Test
    void aWaiterTakesTheKeyOfAHolderThatDiedWhenItsLeaseEnds() throws Exception {
        LockKey key = LockKey.of(LockLevel.DC, "farm1", clientId, "job");
        InstrumentedStore cut = new InstrumentedStore(store());
        LockManager dead = start(nodeBuilder("dead", cut).lease(Duration.ofSeconds(3)));
        HeldElsewhere holder = holdInThread(dead, "job");
        assumeTrue(announcesReleases(key), () -> "store " + store() + " does not announce releases: its waiters poll");
        // the node is cut off from the store: it neither renews nor releases its lock, as if it had died
        cut.setUnreachable(true);
        LockManager a = start(nodeBuilder("a", new InstrumentedStore(store())).waitPollInterval(Duration.ofMinutes(10)));
        long cutAt = System.nanoTime();
        // each lets go at once: the other, woken by that release, takes the key next
        CompletableFuture<Long> task = a.lockForTaskAsync(LockSpec.of("job"), Duration.ofSeconds(40),
                TaskOptions.named("t")).toCompletableFuture().thenApply(lock -> {
                    lock.close();
                    return System.nanoTime();
                });
        try (LockResource lock = a.waitForLock(LockSpec.of("job"), Duration.ofSeconds(40))) {
            assertThat(Duration.ofNanos(System.nanoTime() - cutAt)).as("the thread's wait, with a 3 s lease to end")
                    .isLessThan(Duration.ofSeconds(20));
        }
        assertThat(Duration.ofNanos(task.get(60, TimeUnit.SECONDS) - cutAt)).as("the task's wait")
                .isLessThan(Duration.ofSeconds(20));
        assertThat(holder.resource.isLost()).as("the cut-off holder's lock").isTrue();
    }

    /**
     * A waiter on a store that announces releases is woken by the announcement, and asks the store again only now and
     * then in case one was missed: at the default poll interval at most one store call (a try, or a mark of the key as
     * waited for) per second of waiting, a thread's wait or a task's.
     */
    @Test
    void aWaiterOnAStoreThatAnnouncesReleasesCostsAtMostOneStoreCallASecond() throws Exception {
        LockResource held = node("b").lock("job");
        LockKey key = LockKey.of(LockLevel.DC, "farm1", clientId, "job");
        assumeTrue(announcesReleases(key), () -> "store " + store() + " does not announce releases: its waiters poll");
        InstrumentedStore counted = new InstrumentedStore(store());
        LockManager a = start(nodeBuilder("a", counted));   // the default wait poll interval
        long before = counted.calls("acquire") + counted.calls("watchRelease");
        long start = System.nanoTime();
        assertThatThrownBy(() -> a.waitForLock(LockSpec.of("job"), Duration.ofSeconds(4))).isInstanceOf(AlreadyLockedException.class);
        CompletableFuture<TaskLock> task = a.lockForTaskAsync(LockSpec.of("job"), Duration.ofSeconds(4), TaskOptions.named("t"))
                .toCompletableFuture();
        assertThatThrownBy(() -> task.get(60, TimeUnit.SECONDS)).hasCauseInstanceOf(AlreadyLockedException.class);
        long seconds = Math.max(8, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start));
        long calls = counted.calls("acquire") + counted.calls("watchRelease") - before;
        assertThat(calls).as("store calls of two 4 s waits, a thread's and a task's").isLessThanOrEqualTo(seconds);

        // and the announcement still wakes a waiter at once
        CompletableFuture<TaskLock> woken = a.lockForTaskAsync(LockSpec.of("job"), Duration.ofMinutes(1), TaskOptions.named("w"))
                .toCompletableFuture();
        await().atMost(Duration.ofSeconds(30)).until(() -> counted.calls("watchRelease") > 1);
        long released = System.nanoTime();
        held.close();
        try (TaskLock lock = woken.get(30, TimeUnit.SECONDS)) {
            assertThat(Duration.ofNanos(System.nanoTime() - released)).as("woken by the announcement, not a poll")
                    .isLessThan(Duration.ofSeconds(4));
        }
    }

    @Test
    void fencingTokensIncreaseOverEveryAcquisition() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        long last = 0;
        for (int i = 0; i < 10; i++) {
            LockManager node = i % 2 == 0 ? a : b;
            try (LockResource lock = node.lock("job")) {
                assertThat(lock.getFencingToken()).isGreaterThan(last);
                assertThat(lock.getLock().getFencingToken()).isEqualTo(lock.getFencingToken());
                last = lock.getFencingToken();
            }
        }
    }

    @Test
    void getLocksListsEveryNodesLocksWithTheirDetails() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        LockResource onA = a.lock("one");
        HeldElsewhere two = holdInThread(b, "two", true);
        a.abort("two");
        await().atMost(Duration.ofSeconds(10)).untilTrue(two.interrupted);

        List<Lock> locks = a.getLocks();

        assertThat(locks).hasSize(2);
        Lock one = locks.stream().filter(l -> l.getKey().equals("one")).findFirst().orElseThrow();
        assertThat(one.getOwnerNodeId()).isEqualTo("a");
        assertThat(one.getHolderThreadName()).isEqualTo(Thread.currentThread().getName());
        assertThat(one.getStatus()).isEqualTo(LockStatus.RUNNING);
        assertThat(one.getFencingToken()).isEqualTo(onA.getFencingToken());
        assertThat(one.getExpirationTime()).isAfter(one.getLockTime());
        Lock aborted = locks.stream().filter(l -> l.getKey().equals("two")).findFirst().orElseThrow();
        assertThat(aborted.getOwnerNodeId()).isEqualTo("b");
        assertThat(aborted.getHolderThreadName()).isEqualTo("holder-two");
        assertThat(aborted.getStatus()).as("an aborted lock stays held until its holder lets go")
                .isEqualTo(LockStatus.ABORT);
        two.letGo.countDown();
        two.thread.join(10_000);
        assertThat(a.getLocks()).extracting(Lock::getKey).containsExactly("one");
    }
}
