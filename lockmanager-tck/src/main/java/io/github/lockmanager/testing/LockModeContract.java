package io.github.lockmanager.testing;

import io.github.lockmanager.testing.support.Requests;
import io.github.lockmanager.testing.support.InstrumentedStore;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.Lock;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.ArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * Shared, exclusive and hierarchical locks on every store:
 * the conflict table on the store itself, then the manager's behaviour across nodes. Skipped, saying why, on a
 * store that keeps one holder per key.
 */
public abstract class LockModeContract extends ContractNodes {

    @BeforeEach
    void requireModes() {
    }

    @Test
    void storeGrantsExactlyWhatTheConflictTableAllows() throws Exception {
        LockStore store = store();
        for (LockMode first : LockMode.values()) {
            for (LockMode second : LockMode.values()) {
                LockKey key = Requests.uniqueKey(clientId, "matrix");
                LockRequest one = Requests.request(key, "one", first);
                LockRequest two = Requests.request(key, "two", second);
                assertThat(store.acquire(one, LEASE).isAcquired()).isTrue();
                AcquireResult answer = store.acquire(two, LEASE);
                assertThat(answer.isAcquired()).as("%s after %s", second, first).isEqualTo(!first.conflictsWith(second));
                if (!answer.isAcquired()) {
                    assertThat(answer.record().handle()).as("the refusal names the holder").isEqualTo(one.handle());
                }
                assertThat(store.release(one.handle())).isTrue();
                assertThat(store.release(two.handle())).isEqualTo(answer.isAcquired());
                assertThat(store.read(key)).isEmpty();
            }
        }
    }

    @Test
    void anExclusiveAcquisitionTakesOverFromACrashedLastReader() throws Exception {
        LockStore store = store();
        LockKey key = Requests.uniqueKey(clientId, "crashed");
        AcquireResult crashed = store.acquire(Requests.request(key, "crashed", LockMode.SHARED), Duration.ofSeconds(1));
        assertThat(crashed.isAcquired()).isTrue();
        AcquireResult early = store.acquire(Requests.request(key, "early", LockMode.EXCLUSIVE), LEASE);
        assertThat(early.isAcquired()).as("a writer while the reader's lease lasts").isFalse();
        assertThat(early.record().handle()).isEqualTo(crashed.record().handle());

        // the reader never releases: whatever its store keeps for the key's readers must not keep writers out
        await().atMost(Duration.ofSeconds(20)).until(() -> store.read(key).isEmpty());
        AcquireResult writer = store.acquire(Requests.request(key, "writer", LockMode.EXCLUSIVE), LEASE);
        assertThat(writer.isAcquired()).isTrue();
        assertThat(writer.record().fencingToken()).isGreaterThan(crashed.record().fencingToken());
        assertThat(store.acquire(Requests.request(key, "reader", LockMode.SHARED), LEASE).isAcquired()).isFalse();
        assertThat(store.release(writer.record().handle())).isTrue();
    }

    @Test
    void aRepeatedSharedRequestIsGrantedAsTheSameHolder() throws Exception {
        LockStore store = store();
        LockKey key = Requests.uniqueKey(clientId, "repeated");
        // what a retry after a timed-out write that applied looks like to the store
        LockRequest request = Requests.request(key, "reader", LockMode.SHARED);
        AcquireResult first = store.acquire(request, LEASE);
        AcquireResult again = store.acquire(request, LEASE);
        assertThat(again.isAcquired()).isTrue();
        assertThat(again.record().handle()).isEqualTo(first.record().handle());
        assertThat(store.list()).filteredOn(holder -> holder.key().equals(key)).hasSize(1);
        assertThat(store.release(first.record().handle())).isTrue();
        assertThat(store.read(key)).isEmpty();
    }

    /**
     * The store kit's bookkeeping rule: a holder the store answered lost is forgotten, so its route (a slot, a holders
     * row) is never used again, even when a later holder of the key sits where it sat.
     */
    @Test
    void aHolderFoundLostIsForgottenAndItsReleaseLeavesTheNextHolderAlone() throws Exception {
        LockStore store = store();
        for (LockMode mode : new LockMode[] {LockMode.SHARED, LockMode.INTENT_EXCLUSIVE, LockMode.PERMIT}) {
            LockKey key = Requests.uniqueKey(clientId, "forgotten");
            LockHandle lost = store.acquire(Requests.request(key, "lost", mode), LEASE).record().handle();
            assertThat(store.releaseEvery(key)).hasSize(1);
            assertThat(store.renew(List.of(lost), LEASE)).as("%s", mode).containsEntry(lost, HoldState.LOST);
            assertThat(store.check(List.of(lost))).containsEntry(lost, HoldState.LOST);

            LockHandle next = store.acquire(Requests.request(key, "next", mode), LEASE).record().handle();
            assertThat(store.release(lost)).as("the lost holder's release, %s", mode).isFalse();
            assertThat(store.check(List.of(next))).as("the next holder, %s", mode).containsEntry(next, HoldState.HELD);
            assertThat(store.renew(List.of(lost, next), LEASE)).containsEntry(lost, HoldState.LOST)
                    .containsEntry(next, HoldState.HELD);
            assertThat(store.release(next)).isTrue();
            assertThat(store.read(key)).isEmpty();
        }
    }

    @Test
    void anAbortMarksEveryReaderThenAndNoLaterOne() throws Exception {
        LockStore store = store();
        LockKey key = Requests.uniqueKey(clientId, "abort");
        LockHandle a = store.acquire(Requests.request(key, "a", LockMode.SHARED), LEASE).record().handle();
        LockHandle b = store.acquire(Requests.request(key, "b", LockMode.SHARED), LEASE).record().handle();
        assertThat(store.markAbort(key)).isTrue();
        LockHandle later = store.acquire(Requests.request(key, "later", LockMode.SHARED), LEASE).record().handle();
        assertThat(store.check(List.of(a, b, later))).containsEntry(a, HoldState.ABORT_REQUESTED)
                .containsEntry(b, HoldState.ABORT_REQUESTED).containsEntry(later, HoldState.HELD);
        assertThat(store.renew(List.of(a, later), LEASE)).as("a renewal keeps the mark")
                .containsEntry(a, HoldState.ABORT_REQUESTED).containsEntry(later, HoldState.HELD);
        for (LockHandle handle : List.of(a, b, later)) {
            assertThat(store.release(handle)).isTrue();
        }
        assertThat(store.markAbort(key)).as("nobody left to mark").isFalse();
    }

    @Test
    void sharedHoldersCoexistOnEveryNodeAndShowOneLineEach() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        HeldElsewhere second = holdInThread("reader-2", () -> a.lock(LockSpec.shared("report")), false);
        try (LockResource first = a.lock(LockSpec.shared("report")); LockResource third = b.lock(LockSpec.shared("report"))) {
            assertThat(first.isNewLock()).isTrue();
            assertThat(third.getLock().getMode()).isEqualTo(LockMode.SHARED);
            assertThat(a.isLocked("report")).isTrue();
            List<Lock> locks = b.getLocks();
            assertThat(locks).extracting(Lock::getKey).containsOnly("report");
            assertThat(locks).extracting(Lock::getMode).containsExactly(LockMode.SHARED, LockMode.SHARED, LockMode.SHARED);
            assertThat(locks).extracting(Lock::getHolderThreadName).contains("reader-2", Thread.currentThread().getName());
        } finally {
            second.letGo.countDown();
        }
    }

    @Test
    void sharedAndExclusiveExcludeEachOtherInBothOrders() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        try (LockResource reader = a.lock(LockSpec.shared("doc"))) {
            assertThatThrownBy(() -> b.lock("doc")).isInstanceOf(AlreadyLockedException.class);
            AtomicReference<Throwable> localWriter = new AtomicReference<>();
            Thread writer = spawn("writer", () -> {
                try (LockResource unexpected = a.lock("doc")) {
                    localWriter.set(new AssertionError("a writer of the reader's own node got " + unexpected));
                } catch (Exception e) {
                    localWriter.set(e);
                }
            });
            writer.join(30_000);
            assertThat(localWriter.get()).as("a writer on the reader's node").isInstanceOf(AlreadyLockedException.class);
        }
        try (LockResource writer = b.lock("doc")) {
            assertThatThrownBy(() -> a.lock(LockSpec.shared("doc"))).isInstanceOf(AlreadyLockedException.class)
                    .hasMessageContaining("doc");
        }
        try (LockResource reader = a.lock(LockSpec.shared("doc"))) {
            assertThat(reader.isNewLock()).isTrue();
        }
    }

    @Test
    void aWriterWaitsForTheReadersOfItsNode() throws Exception {
        LockManager a = node("a");
        HeldElsewhere reader = holdInThread("reader", () -> a.lock(LockSpec.shared("queue")), false);
        assertThatThrownBy(() -> a.waitForLock(LockSpec.of("queue"), Duration.ofMillis(100)))
                .as("while a reader of this node holds the key").isInstanceOf(AlreadyLockedException.class);
        reader.letGo.countDown();
        try (LockResource writer = a.waitForLock(LockSpec.of("queue"), Duration.ofSeconds(30))) {
            assertThat(writer.getLock().getMode()).isEqualTo(LockMode.EXCLUSIVE);
        }
        assertThat(a.isLocked("queue")).isFalse();
    }

    @Test
    void reentryPerModeAndSharedUnderExclusiveCostNoStoreCall() throws Exception {
        InstrumentedStore store = new InstrumentedStore(store());
        LockManager a = start(nodeBuilder("a", store));
        try (LockResource first = a.lock(LockSpec.shared("k")); LockResource again = a.lock(LockSpec.shared("k"))) {
            assertThat(again.isNewLock()).isFalse();
            assertThat(again.getFencingToken()).isEqualTo(first.getFencingToken());
        }
        try (LockResource writer = a.lock("w"); LockResource reader = a.lock(LockSpec.shared("w"))) {
            assertThat(reader.isNewLock()).as("a shared hold under the thread's exclusive lock").isFalse();
            assertThat(reader.getFencingToken()).isEqualTo(writer.getFencingToken());
        }
        assertThat(store.calls("acquire")).as("one store call per new holder only").isEqualTo(2);
        assertThat(a.isLocked("k")).isFalse();
        assertThat(a.isLocked("w")).isFalse();
    }

    @Test
    void anUpgradeIsRefusedAtOnceAndTheSharedHoldStays() throws Exception {
        LockManager a = node("a");
        try (LockResource reader = a.lock(LockSpec.shared("k"))) {
            assertThatThrownBy(() -> a.lock("k")).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("'k'").hasMessageContaining("upgrade").hasMessageContaining("SHARED");
            assertThatThrownBy(() -> a.lock(LockSpec.path("k/child", LockMode.EXCLUSIVE)))
                    .as("an exclusive intention under one's own shared hold is an upgrade too")
                    .isInstanceOf(IllegalStateException.class);
            assertThat(reader.isLost()).isFalse();
            assertThat(a.getLocks()).singleElement().extracting(Lock::getMode).isEqualTo(LockMode.SHARED);
        }
        try (LockResource writer = a.lock("k")) {
            assertThat(writer.isNewLock()).isTrue();
        }
    }

    /** Each row: a lock, a second lock, and whether they conflict; checked in both orders on two nodes. */
    @Test
    void hierarchicalLocksFollowTheConflictTable() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        Object[][] rows = {
                {"a/b", LockMode.EXCLUSIVE, "a/b", LockMode.SHARED, true},
                {"a/b", LockMode.EXCLUSIVE, "a", LockMode.EXCLUSIVE, true},
                {"a/b", LockMode.EXCLUSIVE, "a", LockMode.SHARED, true},
                {"a/b", LockMode.EXCLUSIVE, "a/b/c", LockMode.SHARED, true},
                {"a/b", LockMode.EXCLUSIVE, "a/b/c", LockMode.EXCLUSIVE, true},
                {"a/b", LockMode.EXCLUSIVE, "a/c", LockMode.EXCLUSIVE, false},
                {"a/b", LockMode.SHARED, "a/b", LockMode.SHARED, false},
                {"a/b", LockMode.SHARED, "a", LockMode.EXCLUSIVE, true},
                {"a/b", LockMode.SHARED, "a", LockMode.SHARED, false},
                {"a/b", LockMode.SHARED, "a/b/c", LockMode.EXCLUSIVE, true},
                {"a/b", LockMode.SHARED, "a/b/c", LockMode.SHARED, false},
                {"a/b", LockMode.SHARED, "a/c", LockMode.EXCLUSIVE, false},
        };
        for (Object[] row : rows) {
            for (boolean reversed : new boolean[]{false, true}) {
                String firstPath = (String) row[reversed ? 2 : 0];
                LockMode firstMode = (LockMode) row[reversed ? 3 : 1];
                String secondPath = (String) row[reversed ? 0 : 2];
                LockMode secondMode = (LockMode) row[reversed ? 1 : 3];
                boolean conflict = (boolean) row[4];
                try (LockResource first = a.lock(LockSpec.path(firstPath, firstMode))) {
                    String what = secondMode + " " + secondPath + " while " + firstMode + " " + firstPath + " is held";
                    if (conflict) {
                        assertThatThrownBy(() -> b.lock(LockSpec.path(secondPath, secondMode))).as(what)
                                .isInstanceOf(AlreadyLockedException.class);
                        assertThat(b.getLocks()).as("%s left nothing of node b's", what)
                                .noneMatch(lock -> lock.getOwnerNodeId().equals("b"));
                    } else {
                        try (LockResource second = b.lock(LockSpec.path(secondPath, secondMode))) {
                            assertThat(second.getLock().getKey()).as(what).isEqualTo(secondPath);
                        }
                    }
                }
                assertThat(a.getLocks()).as("everything given back after %s", List.of(row)).isEmpty();
            }
        }
    }

    @Test
    void aHierarchicalHoldShowsTheIntentionsOnItsAncestors() throws Exception {
        LockManager a = node("a");
        try (LockResource path = a.lock(LockSpec.path("x/y/z", LockMode.EXCLUSIVE))) {
            assertThat(path.getLock().getKey()).isEqualTo("x/y/z");
            assertThat(a.getLocks()).extracting(Lock::getKey, Lock::getMode).containsExactlyInAnyOrder(
                    tuple("x", LockMode.INTENT_EXCLUSIVE),
                    tuple("x/y", LockMode.INTENT_EXCLUSIVE),
                    tuple("x/y/z", LockMode.EXCLUSIVE));
            assertThat(a.isLocked("x")).isTrue();
        }
        assertThat(a.getLocks()).isEmpty();
        assertThatThrownBy(() -> a.lock(LockSpec.path("x//z", LockMode.SHARED))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty segment");
        assertThatThrownBy(() -> a.lock(LockSpec.path("x", LockMode.INTENT_SHARED))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("INTENT_SHARED");
    }

    @Test
    void eachSharedHolderHasItsOwnLease() throws Exception {
        InstrumentedStore failing = new InstrumentedStore(store());
        Duration lease = Duration.ofSeconds(1);
        LockManager a = start(nodeBuilder("a", failing).lease(lease));
        LockManager b = start(nodeBuilder("b", new InstrumentedStore(store())).lease(lease));
        LockManager c = node("c");
        HeldElsewhere readerA = holdInThread("reader-a", () -> a.lock(LockSpec.shared("k")), true);
        try (LockResource readerB = b.lock(LockSpec.shared("k"))) {
            failing.setUnreachable(true);
            await().atMost(Duration.ofSeconds(20)).until(() -> readerA.resource.isLost());
            await().atMost(Duration.ofSeconds(20)).until(() -> c.getLocks().size() == 1);
            assertThat(readerB.isLost()).as("the other reader keeps its lock").isFalse();
            assertThat(c.getLocks()).singleElement().extracting(Lock::getOwnerNodeId).isEqualTo("b");
            assertThatThrownBy(() -> c.lock("k")).isInstanceOf(AlreadyLockedException.class);
        } finally {
            readerA.letGo.countDown();
        }
        try (LockResource writer = c.lock("k")) {
            assertThat(writer.isNewLock()).isTrue();
        }
    }

    @Test
    void abortInterruptsEveryHolderOfASharedKey() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        HeldElsewhere onA = holdInThread("reader-a", () -> a.lock(LockSpec.shared("k")), false);
        HeldElsewhere onB = holdInThread("reader-b", () -> b.lock(LockSpec.shared("k")), false);
        a.abort("k");
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(onA.interrupted).isTrue();
            assertThat(onB.interrupted).isTrue();
        });
    }

    @Test
    void tokensIncreaseOverEveryConflictingAcquisition() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        long writer;
        try (LockResource w = a.lock("t")) {
            writer = w.getFencingToken();
        }
        long readers;
        try (LockResource r1 = a.lock(LockSpec.shared("t")); LockResource r2 = b.lock(LockSpec.shared("t"))) {
            assertThat(r1.getFencingToken()).isGreaterThan(writer);
            assertThat(r2.getFencingToken()).isGreaterThan(writer);
            readers = Math.max(r1.getFencingToken(), r2.getFencingToken());
        }
        try (LockResource w = b.lock("t")) {
            assertThat(w.getFencingToken()).as("a writer's token is above every earlier reader's").isGreaterThan(readers);
        }
    }

    /**
     * One key taken in turn in every mode, each holder leaving before or while the next comes: what a store keeps of
     * a key after its last holder left (a mark for the next reader, say) must neither let a conflicting holder in nor
     * keep a compatible one out, and each holder's token stays above those of the earlier holders it conflicts with.
     */
    @Test
    void aKeyTakenInTurnInEveryModeGrantsAndOrdersAsTheTableSays() throws Exception {
        LockStore store = store();
        LockKey key = Requests.uniqueKey(clientId, "turns");
        LockRequest reader = Requests.request(key, "reader", LockMode.SHARED);
        long readerToken = granted(store, reader);
        assertThat(store.release(reader.handle())).isTrue();
        LockRequest intent = Requests.request(key, "intent", LockMode.INTENT_EXCLUSIVE);
        long intentToken = granted(store, intent);
        assertThat(intentToken).as("an intention-exclusive holder after a reader").isGreaterThan(readerToken);
        refused(store, key, LockMode.SHARED, "a reader beside an intention-exclusive holder");
        LockRequest glance = Requests.request(key, "glance", LockMode.INTENT_SHARED);
        long glanceToken = granted(store, glance);
        assertThat(store.release(intent.handle())).isTrue();
        LockRequest second = Requests.request(key, "second", LockMode.SHARED);
        long secondToken = granted(store, second);
        assertThat(secondToken).as("a reader after an intention-exclusive holder").isGreaterThan(intentToken);
        refused(store, key, LockMode.INTENT_EXCLUSIVE, "an intention-exclusive holder beside a reader");
        refused(store, key, LockMode.EXCLUSIVE, "a writer while holders are left");
        assertThat(store.release(glance.handle())).isTrue();
        assertThat(store.release(second.handle())).isTrue();
        assertThat(store.read(key)).as("the key after its last holder left").isEmpty();
        LockRequest writer = Requests.request(key, "writer", LockMode.EXCLUSIVE);
        long writerToken = granted(store, writer);
        assertThat(writerToken).as("a writer after them all").isGreaterThan(Math.max(glanceToken, secondToken));
        refused(store, key, LockMode.INTENT_SHARED, "any holder beside a writer");
        assertThat(store.release(writer.handle())).isTrue();
        LockRequest last = Requests.request(key, "last", LockMode.INTENT_SHARED);
        assertThat(granted(store, last)).as("a holder after the writer").isGreaterThan(writerToken);
        assertThat(store.release(last.handle())).isTrue();
    }

    /**
     * One key taken again and again, in both modes, by one thread: every grant must be seen by the next contender and
     * every release by the next acquisition, however close together they come (on HBase, within one millisecond of
     * the store's clock, where a delete can hide a later write of the same timestamp).
     */
    @Test
    void sharedAndExclusiveHoldersAlternateInATightLoop() throws Exception {
        LockStore store = store();
        LockKey key = Requests.uniqueKey(clientId, "tight");
        long lastToken = 0;
        long lastWriterToken = 0;
        for (int round = 0; round < 300; round++) {
            LockMode mode = round % 3 == 0 ? LockMode.EXCLUSIVE : LockMode.SHARED;
            LockRequest mine = Requests.request(key, "own" + round, mode);
            long token = granted(store, mine);
            assertThat(token).as("round %d: a %s holder's token", round, mode)
                    .isGreaterThan(mode == LockMode.EXCLUSIVE ? lastToken : lastWriterToken);
            refused(store, key, LockMode.EXCLUSIVE, "round " + round + ": a writer beside a " + mode + " holder");
            LockRequest reader = Requests.request(key, "reader" + round, LockMode.SHARED);
            AcquireResult beside = store.acquire(reader, LEASE);
            assertThat(beside.isAcquired()).as("round %d: a reader beside a %s holder", round, mode)
                    .isEqualTo(mode == LockMode.SHARED);
            if (beside.isAcquired()) {
                assertThat(beside.record().fencingToken()).as("round %d: a reader's token", round)
                        .isGreaterThan(lastWriterToken);
                lastToken = Math.max(lastToken, beside.record().fencingToken());
                assertThat(store.release(reader.handle())).isTrue();
            }
            lastToken = Math.max(lastToken, token);
            if (mode == LockMode.EXCLUSIVE) {
                lastWriterToken = token;
            }
            assertThat(store.release(mine.handle())).as("round %d: the release of the %s holder", round, mode).isTrue();
        }
        assertThat(store.read(key)).as("the key after the loop").isEmpty();
    }

    /**
     * Threads racing for one key in every mode for a while: no grant beside a live holder it conflicts with, and
     * every granted holder's record is still there to release (a change lost between two concurrent ones shows as
     * a release that finds nothing).
     */
    @Test
    void holdersRacingForOneKeyAreNeverGrantedWhatConflicts() throws Exception {
        LockStore store = store();
        LockKey key = Requests.uniqueKey(clientId, "race");
        LockMode[] modes = {LockMode.SHARED, LockMode.EXCLUSIVE, LockMode.SHARED, LockMode.INTENT_EXCLUSIVE,
                LockMode.INTENT_SHARED, LockMode.SHARED};
        AtomicIntegerArray inside = new AtomicIntegerArray(LockMode.values().length);
        AtomicIntegerArray grants = new AtomicIntegerArray(LockMode.values().length);
        AtomicReference<String> violation = new AtomicReference<>();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        ExecutorService pool = Executors.newFixedThreadPool(modes.length);
        try {
            List<Future<?>> racers = new ArrayList<>();
            for (int t = 0; t < modes.length; t++) {
                LockMode mode = modes[t];
                String racer = "racer" + t + "-";
                racers.add(pool.submit(() -> {
                    for (int round = 0; System.nanoTime() < until && violation.get() == null; round++) {
                        LockRequest request = Requests.request(key, racer + round, mode);
                        if (!store.acquire(request, LEASE).isAcquired()) {
                            continue;
                        }
                        grants.incrementAndGet(mode.ordinal());
                        inside.incrementAndGet(mode.ordinal());
                        for (LockMode other : LockMode.values()) {
                            int others = inside.get(other.ordinal()) - (other == mode ? 1 : 0);
                            if (others > 0 && other.conflictsWith(mode)) {
                                violation.compareAndSet(null, mode + " granted beside " + other);
                            }
                        }
                        Thread.yield();
                        inside.decrementAndGet(mode.ordinal());
                        if (!store.release(request.handle())) {
                            violation.compareAndSet(null, mode + " holder " + request.handle().ownerToken()
                                    + " was gone before its release");
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> racer : racers) {
                racer.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(violation.get()).isNull();
        assertThat(grants.get(LockMode.SHARED.ordinal())).as("shared grants").isPositive();
        assertThat(store.read(key)).as("the key after the race").isEmpty();
    }

    private static void refused(LockStore store, LockKey key, LockMode mode, String what) throws Exception {
        assertThat(store.acquire(Requests.request(key, "refused-" + mode, mode), LEASE).isAcquired()).as(what).isFalse();
    }

    private static long granted(LockStore store, LockRequest request) throws Exception {
        AcquireResult answer = store.acquire(request, LEASE);
        assertThat(answer.isAcquired()).as("%s of %s", request.mode(), request.handle().ownerToken()).isTrue();
        return answer.record().fencingToken();
    }

    @Test
    void forceReleaseEndsEverySharedHolder() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        LockManager admin = node("admin");
        HeldElsewhere first = holdInThread("reader-a", () -> a.lock(LockSpec.shared("report")), true);
        HeldElsewhere second = holdInThread("reader-b", () -> b.lock(LockSpec.shared("report")), true);
        assertThat(admin.inspect("report", LockLevel.DC)).extracting(Lock::getMode)
                .containsExactly(LockMode.SHARED, LockMode.SHARED);
        assertThat(admin.forceRelease("report", LockLevel.DC, "ops-carol")).isEqualTo(2);
        await().atMost(Duration.ofSeconds(30)).until(() -> first.resource.isLost() && second.resource.isLost());
        admin.lock("report").close();
        first.letGo.countDown();
        second.letGo.countDown();
    }
}
