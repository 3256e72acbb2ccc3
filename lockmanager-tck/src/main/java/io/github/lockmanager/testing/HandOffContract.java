package io.github.lockmanager.testing;

import io.github.lockmanager.testing.support.InstrumentedStore;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockEventListener;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.TaskLock;
import io.github.lockmanager.TaskOptions;
import io.github.lockmanager.spi.LockKey;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Hand-offs between owners of one node, which every store supports:
 * a key let go of while another thread or a task of the node waits for it passes to that waiter in one store
 * call, a bounded number of times in a row, and a record kept for a waiter whose claim fails is released. (A waiter
 * that wakes and does not claim at all, interrupted at that moment, is the engine's own test: no public call can
 * place an interrupt there.)
 */
public abstract class HandOffContract extends ContractNodes {
    /** What {@link #holderAndWaiter} set up: node a's store calls, node a, node b, the holder and the waiter. */
    private InstrumentedStore counted;
    private LockManager here;
    private LockManager other;
    private HeldElsewhere holder;
    private HeldElsewhere waiter;

    @BeforeEach
    void onlyWhereSupported() {
    }

    @Test
    void aKeyLetGoOfWhileAThreadOfItsNodeWaitsPassesToThatThreadInOneStoreCall() throws Exception {
        holderAndWaiter();
        long releases = counted.calls("release");
        long acquires = counted.calls("acquire");

        holder.letGo.countDown();
        awaitHeld(waiter);

        assertThat(counted.calls("release")).as("releases of the key").isEqualTo(releases);
        assertThat(counted.calls("acquire")).as("acquisitions of the key").isEqualTo(acquires + 1);
        assertThat(waiter.resource.getFencingToken()).isGreaterThan(holder.resource.getFencingToken());
        assertThat(waiter.resource.isNewLock()).isTrue();
        assertThatThrownBy(() -> other.lock("job")).isInstanceOfSatisfying(AlreadyLockedException.class,
                e -> assertThat(e.getHolderThreadName()).isEqualTo("waiter"));
        holder.resource.close();
        assertThat(waiter.resource.isLost()).as("the former holder's resource closed again").isFalse();

        waiter.letGo.countDown();
        waiter.thread.join(30_000);
        assertThat(counted.calls("release")).as("releases with nobody waiting").isEqualTo(releases + 1);
        assertThat(other.lock("job").isNewLock()).isTrue();
    }

    /** One wait for threads and tasks: a task waiter is queued as a thread is, and takes the record over the same way. */
    @Test
    void aKeyLetGoOfWhileATaskOfItsNodeWaitsPassesToThatTaskInOneStoreCall() throws Exception {
        InstrumentedStore instrumented = new InstrumentedStore(store());
        AtomicInteger refusals = new AtomicInteger();
        LockManager a = start(nodeBuilder("a", instrumented).eventListener(new LockEventListener() {
            @Override
            public void refused(String key, LockLevel level, LockMode mode) {
                refusals.incrementAndGet();
            }
        }));
        HeldElsewhere held = holdInThread(a, "job");
        CompletableFuture<TaskLock> waiting = a.lockForTaskAsync(LockSpec.of("job"), Duration.ofSeconds(60),
                TaskOptions.named("next")).toCompletableFuture();
        // refused by the holder here, then parked: its task thread goes back to the pool
        await().atMost(Duration.ofSeconds(30)).until(() -> refusals.get() > 0 && taskThreadsIdle("a"));
        long releases = instrumented.calls("release");
        long acquires = instrumented.calls("acquire");

        held.letGo.countDown();

        try (TaskLock next = waiting.get(30, TimeUnit.SECONDS)) {
            assertThat(instrumented.calls("release")).as("releases of the key").isEqualTo(releases);
            assertThat(instrumented.calls("acquire")).as("acquisitions of the key").isEqualTo(acquires + 1);
            assertThat(next.getFencingToken()).isGreaterThan(held.resource.getFencingToken());
            assertThat(held.resource.isLost()).isFalse();
        }
    }

    private static boolean taskThreadsIdle(String node) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("lockmanager-" + node + "-tasks"))
                .allMatch(t -> t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING);
    }

    @Test
    void aKeyIsHandedOverAtMostTheSetNumberOfTimesInARowThenReleasedForOtherNodes() throws Exception {
        InstrumentedStore instrumented = new InstrumentedStore(store());
        LockManager a = start(nodeBuilder("a", instrumented).maxLocalHandOffs(2));
        HeldElsewhere held = holdInThread(a, "job");
        long releases = instrumented.calls("release");

        // hand-offs 1 and 2, then a release, then a hand-off again: the count starts over after a release
        long[] releasesAfter = new long[4];
        for (int turn = 0; turn < releasesAfter.length; turn++) {
            HeldElsewhere next = waitInThread(a, "job", "waiter-" + turn);
            held.letGo.countDown();
            awaitHeld(next);
            held.thread.join(30_000);
            releasesAfter[turn] = instrumented.calls("release") - releases;
            held = next;
        }
        held.letGo.countDown();

        assertThat(releasesAfter).as("releases in the store after each turn").containsExactly(0, 0, 1, 1);
    }

    /**
     * The bound on passing over other nodes without fair mode: when a run of hand-offs ends and this node has kept the
     * key a while, its next waiter holds back a moment and a waiter on another node takes the key.
     */
    @Test
    void aWaiterOnAnotherNodeTakesTheKeyWhenARunOfHandOffsEnds() throws Exception {
        LockManager a = start(nodeBuilder("a", new InstrumentedStore(store())).maxLocalHandOffs(2));
        LockManager b = start(nodeBuilder("b", new InstrumentedStore(store())).waitPollInterval(Duration.ofMillis(1)));
        HeldElsewhere held = holdInThread(a, "job");
        HeldElsewhere remote = new HeldElsewhere();
        remote.thread = spawn("remote", () -> {
            try (LockResource lock = b.waitForLock(LockSpec.of("job"), Duration.ofSeconds(60))) {
                remote.acquired.countDown();
                remote.letGo.await();
            } catch (Exception e) {
                remote.failure.set(e);
                remote.acquired.countDown();
            }
        });
        awaitWaiting(remote.thread);
        int localTurns = 0;
        while (remote.acquired.getCount() > 0 && localTurns < 12) {
            HeldElsewhere next = waitInThread(a, "job", "local-" + localTurns++);
            Thread.sleep(30); // the holder's work: a run of two hand-offs then keeps the key past the streak
            held.letGo.countDown();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> next.acquired.getCount() == 0 || remote.acquired.getCount() == 0);
            held = next;
        }
        assertThat(remote.failure.get()).isNull();
        assertThat(remote.acquired.getCount()).as("the other node's waiter took the key").isZero();
        assertThat(localTurns).as("local turns before it did: one or two runs of hand-offs").isLessThanOrEqualTo(6);
        remote.letGo.countDown();
        held.letGo.countDown();
    }

    /**
     * The same bound under load, where it is tested hardest: the threads of node a take the key in turn and ask again
     * the moment they let go, so the one that ends a run of hand-offs would take the key back before node b's waiter,
     * woken by the store's announcement, could try. It must not: a wait that starts while its node holds back holds
     * back too. Node b waits on announcements alone (its poll interval is beyond the test), three times in a row.
     */
    @Test
    void aWaiterOnAnotherNodeIsPassedOverForAboutOneRunWhileThisNodesThreadsAskAgainAtOnce() throws Exception {
        passedOverWhileNodeAAsksAgainAtOnce(false);
    }

    /** As above, node a's waits being tasks' ({@code lockForTaskAsync}). */
    @Test
    void aWaiterOnAnotherNodeIsPassedOverForAboutOneRunWhileThisNodesTasksAskAgainAtOnce() throws Exception {
        passedOverWhileNodeAAsksAgainAtOnce(true);
    }

    private void passedOverWhileNodeAAsksAgainAtOnce(boolean tasks) throws Exception {
        LockManager a = start(nodeBuilder("a", new InstrumentedStore(store())));
        LockManager b = start(nodeBuilder("b", new InstrumentedStore(store())).waitPollInterval(Duration.ofMinutes(10)));
        try (LockResource held = a.lock("job")) {
            assumeTrue(announcesReleases(LockKey.of(LockLevel.DC, "farm1", clientId, "job")),
                    () -> "store " + store() + " does not announce releases: a waiter of another node polls, and "
                            + "takes the key only if a poll falls within a hold-back");
        }
        AtomicInteger grantsOfA = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        for (int t = 0; t < 2; t++) {
            spawn("a-" + t, () -> {
                try {
                    while (!stop.get()) {
                        try (AutoCloseable lock = tasks
                                ? a.lockForTaskAsync(LockSpec.of("job"), Duration.ofSeconds(60), TaskOptions.named(
                                "a")).toCompletableFuture().get(60, TimeUnit.SECONDS)
                                : a.waitForLock(LockSpec.of("job"), Duration.ofSeconds(60))) {
                            grantsOfA.incrementAndGet();
                            Thread.sleep(2);
                        }
                    }
                } catch (InterruptedException stopped) {
                    Thread.currentThread().interrupt();
                } catch (Exception e) {
                    failures.add(e);
                }
            });
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> grantsOfA.get() > 20);
        int passedOver = 0;
        try {
            for (int wait = 0; wait < 3; wait++) {
                int before = grantsOfA.get();
                try (LockResource lock = b.waitForLock(LockSpec.of("job"), Duration.ofSeconds(60))) {
                    passedOver += grantsOfA.get() - before;
                }
            }
        } finally {
            stop.set(true);
        }
        assertThat(failures).isEmpty();
        // a run is about 50 ms of 2 ms turns, some 25 grants; passing the waiter over until it polls would be
        // hundreds a second
        assertThat(passedOver).as("grants of node a during node b's three waits").isLessThan(300);
    }

    @Test
    void aHandOffThatAppliedButWhoseAnswerWasLostLeavesNoLockBehind() throws Exception {
        holderAndWaiter();
        counted.makeNextAcquireAmbiguous();

        holder.letGo.countDown();

        assertThat(waiter.acquired.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(waiter.failure.get()).isInstanceOf(LockManagerException.class);
        // the lease is 30 s: only the manager's own clean-up can free the key this soon
        await().atMost(Duration.ofSeconds(10)).until(() -> !other.isLocked("job"));
    }

    @Test
    void aHandOffThatFailedLeavesTheKeptRecordReleased() throws Exception {
        holderAndWaiter();
        // the holder keeps its record for the waiter without a store call; the waiter's call finds no store
        counted.setUnreachable(true);
        holder.letGo.countDown();
        assertThat(waiter.acquired.await(30, TimeUnit.SECONDS)).isTrue();
        counted.setUnreachable(false);

        assertThat(waiter.failure.get()).isInstanceOf(LockManagerException.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> !other.isLocked("job"));
    }

    @Test
    void noKeyIsHandedOverWhenHandOffsAreOff() throws Exception {
        InstrumentedStore instrumented = new InstrumentedStore(store());
        LockManager a = start(nodeBuilder("a", instrumented).maxLocalHandOffs(0));
        HeldElsewhere held = holdInThread(a, "job");
        HeldElsewhere next = waitInThread(a, "job", "waiter");
        long releases = instrumented.calls("release");

        held.letGo.countDown();
        awaitHeld(next);

        assertThat(instrumented.calls("release")).as("releases of the key").isEqualTo(releases + 1);
        next.letGo.countDown();
    }

    /**
     * The store took the key away from a holder (force-released from node b, which then took and released it) before
     * the holder noticed: letting go of it with a waiter of its node must tell the holder it lost the lock, as a
     * release would have, and the waiter must take the key afresh, not inherit the loss unseen.
     */
    @Test
    void aHandOffOfARecordTheStoreTookAwayTellsTheGiverItLostTheLockAndTheWaiterTakesTheKeyAfresh() throws Exception {
        List<String> losses = nodeWhoseHolderWillNotNotice();
        assertThat(other.forceRelease("job", other.getDefaultLevel(), "test")).isEqualTo(1);
        long between;
        try (LockResource taken = other.lock("job")) {
            between = taken.getFencingToken();
        }
        long releases = counted.calls("release");

        holder.letGo.countDown();
        awaitHeld(waiter);
        assertThat(counted.calls("release")).as("the holder's record was parked for the waiter, not released: the "
                + "hand-off's refusal is what told the holder").isEqualTo(releases);

        await().atMost(Duration.ofSeconds(30)).until(() -> holder.resource.isLost());
        assertThat(losses).containsExactly("holder-job " + LockLossReason.NOT_OWNED);
        assertThat(waiter.resource.isLost()).isFalse();
        assertThat(waiter.resource.getFencingToken()).isGreaterThan(between);
        assertThatThrownBy(() -> other.lock("job")).isInstanceOfSatisfying(AlreadyLockedException.class,
                e -> assertThat(e.getHolderThreadName()).isEqualTo("waiter"));
        waiter.letGo.countDown();
        waiter.thread.join(30_000);
        await().atMost(Duration.ofSeconds(10)).until(() -> !other.isLocked("job"));
    }

    /** As above, with node b still holding the key: the giver is told, and the waiter waits on for node b. */
    @Test
    void aHandOffRefusedForAnotherNodesHolderTellsTheGiverAndTheWaiterWaitsForThatHolder() throws Exception {
        List<String> losses = nodeWhoseHolderWillNotNotice();
        assertThat(other.forceRelease("job", other.getDefaultLevel(), "test")).isEqualTo(1);
        LockResource taken = other.lock("job");
        long releases = counted.calls("release");

        holder.letGo.countDown();

        await().atMost(Duration.ofSeconds(30)).until(() -> holder.resource.isLost());
        assertThat(losses).containsExactly("holder-job " + LockLossReason.NOT_OWNED);
        assertThat(waiter.acquired.getCount()).as("the waiter still waits for node b").isEqualTo(1);
        assertThat(counted.calls("release")).as("parked for the waiter, not released").isEqualTo(releases);
        taken.close();
        awaitHeld(waiter);
        assertThat(waiter.resource.getFencingToken()).isGreaterThan(taken.getFencingToken());
        waiter.letGo.countDown();
    }

    /**
     * Node a with a holder and a waiter of "job" as {@link #holderAndWaiter}, whose lease and abort poll are so long that
     * it learns of nothing the store does by itself within a test; the losses it reports, as "thread reason".
     */
    private List<String> nodeWhoseHolderWillNotNotice() throws Exception {
        List<String> losses = new CopyOnWriteArrayList<>();
        counted = new InstrumentedStore(store());
        here = start(nodeBuilder("a", counted).lease(Duration.ofMinutes(30)).abortPollInterval(Duration.ofMinutes(10))
                .lossListener((lock, thread, reason) -> losses.add(thread.getName() + " " + reason)));
        other = node("b");
        holder = holdInThread(here, "job", true);
        waiter = waitInThread(here, "job", "waiter");
        return losses;
    }

    /** Node a on {@link #counted}, a thread of it holding "job" and another waiting for it; node b beside them. */
    private void holderAndWaiter() throws Exception {
        counted = new InstrumentedStore(store());
        here = start(nodeBuilder("a", counted));
        other = node("b");
        holder = holdInThread(here, "job");
        waiter = waitInThread(here, "job", "waiter");
    }

    private static void awaitHeld(HeldElsewhere held) throws InterruptedException {
        assertThat(held.acquired.await(30, TimeUnit.SECONDS)).as("the waiter took the lock").isTrue();
        assertThat(held.failure.get()).as("the waiter's failure").isNull();
    }
}
