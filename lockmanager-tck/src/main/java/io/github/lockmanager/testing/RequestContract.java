package io.github.lockmanager.testing;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.LockSet;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.LockWaiter;
import io.github.lockmanager.TaskLock;
import io.github.lockmanager.TaskOptions;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.testing.support.InstrumentedStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Requests across nodes: fair waits register a request that every node sees and that goes when the wait ends, are
 * served in the order they asked whatever node they wait on, keep later readers from overtaking a waiting writer and
 * new locks below a waiting parent out; a cycle of waits across nodes ends one of them with a deadlock error naming
 * it, and waits that form no cycle are never ended; a set of keys is taken whole or not at all. On every store.
 */
public abstract class RequestContract extends ContractNodes {
    private static final Duration LONG = Duration.ofSeconds(60);

    /** A node that polls every 20 ms, so that it looks for deadlocks every 200 ms (ten poll intervals). */
    private LockManager quickNode(String nodeId) throws LockManagerException {
        return start(nodeBuilder(nodeId, new io.github.lockmanager.testing.support.InstrumentedStore(store()))
                .waitPollInterval(Duration.ofMillis(20)));
    }

    private static LockSpec fair(String key) {
        return LockSpec.of(key).fair(true);
    }

    private static List<LockWaiter> waitersOf(LockManager node, String key) throws LockManagerException {
        return node.getWaiters().stream().filter(w -> w.key().equals(key)).toList();
    }

    /** A thread of {@code node} that waits fairly for {@code spec}, notes its name in {@code served}, and lets go. */
    private Thread waitInTurn(LockManager node, String name, LockSpec spec, List<String> served,
                              AtomicReference<Throwable> failure) {
        return spawn(name, () -> {
            try (LockResource held = node.waitForLock(spec, LONG)) {
                served.add(name);
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        });
    }

    @Test
    void aFairWaiterIsSeenFromEveryNodeAndLeavesNothingBehind() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        HeldElsewhere holder = holdInThread(a, "job");
        List<String> served = new CopyOnWriteArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        waitInTurn(b, "waiter-1", fair("job"), served, failure);

        await().atMost(30, TimeUnit.SECONDS).until(() -> waitersOf(a, "job").size() == 1);
        LockWaiter seen = waitersOf(a, "job").get(0);
        assertThat(seen.nodeId()).isEqualTo("b");
        assertThat(seen.ownerName()).isEqualTo("waiter-1");
        assertThat(seen.mode()).isEqualTo(LockMode.EXCLUSIVE);
        assertThat(seen.expirationTime()).isAfter(seen.since());
        assertThat(a.getLocks()).as("a request is no lock").hasSize(1);

        holder.letGo.countDown();
        await().atMost(30, TimeUnit.SECONDS).until(() -> served.contains("waiter-1"));
        assertThat(failure.get()).isNull();
        await().atMost(30, TimeUnit.SECONDS).until(() -> b.getWaiters().isEmpty());

        try (LockResource held = a.lock("job")) {
            assertThatThrownBy(() -> b.waitForLock(fair("job"), Duration.ofMillis(300)))
                    .isInstanceOf(AlreadyLockedException.class);
            await("a wait that timed out withdraws its request").atMost(30, TimeUnit.SECONDS)
                    .until(() -> a.getWaiters().isEmpty());
        }
    }

    /**
     * A fair waiter refused by a holder finds its place in line as it registers, while the key is held: at the
     * release it takes the key without reading the line again (one store call, as an unfair waiter).
     */
    @Test
    void theFirstInLineTakesTheKeyAtItsReleaseWithoutReadingTheLine() throws Exception {
        LockManager a = node("a");
        InstrumentedStore counted = new InstrumentedStore(store());
        LockManager b = start(nodeBuilder("b", counted).waitPollInterval(Duration.ofMillis(20)));
        HeldElsewhere holder = holdInThread(a, "first");
        List<String> served = new CopyOnWriteArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        waitInTurn(b, "waiter", fair("first"), served, failure);
        // its first try read the line; registered, it read it again
        await().atMost(30, TimeUnit.SECONDS)
                .until(() -> waitersOf(a, "first").size() == 1 && counted.calls("inspect") >= 2);
        long reads = counted.calls("inspect");

        holder.letGo.countDown();
        await().atMost(30, TimeUnit.SECONDS).until(() -> served.contains("waiter") || failure.get() != null);
        assertThat(failure.get()).isNull();
        assertThat(counted.calls("inspect") - reads).as("reads of the line after the waiter registered").isZero();
    }

    /**
     * Where the store announces a withdrawn request, the next in line hears of it at once and finds itself first while
     * the key is still held (node b polls beyond the test's patience: only the announcement can wake it before the
     * release); at the release it takes the key without reading the line. (The request before it is withdrawn here
     * because its wait runs out; a granted one is withdrawn the same way.)
     */
    @Test
    void theNextInLineFindsItselfFirstWhenTheRequestBeforeItIsWithdrawnWhereWithdrawalsAreAnnounced() throws Exception {
        LockManager a = node("a");
        InstrumentedStore counted = new InstrumentedStore(store());
        LockManager b = start(nodeBuilder("b", counted).waitPollInterval(Duration.ofMinutes(10)));
        HeldElsewhere holder = holdInThread(a, "next");
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch firstGaveUp = new CountDownLatch(1);
        spawn("first", () -> {
            try (LockResource held = a.waitForLock(fair("next"), Duration.ofSeconds(2))) {
                failure.compareAndSet(null, new AssertionError("the holder let go before the test said so"));
            } catch (AlreadyLockedException ranOut) {
                firstGaveUp.countDown();
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        });
        await().atMost(30, TimeUnit.SECONDS).until(() -> waitersOf(a, "next").size() == 1);
        assumeTrue(announcesReleases(LockKey.of(LockLevel.DC, "farm1", clientId, "next").requests()),
                () -> "store " + store() + " does not announce withdrawn requests: the next in line reads the line at "
                        + "the key's release");
        List<String> served = new CopyOnWriteArrayList<>();
        waitInTurn(b, "second", fair("next"), served, failure);
        await().atMost(30, TimeUnit.SECONDS).until(() -> waitersOf(a, "next").size() == 2);
        long acquires = counted.calls("acquire");

        assertThat(firstGaveUp.await(30, TimeUnit.SECONDS)).isTrue();
        // woken by the first's withdrawal, it read the line, found itself first and tried: refused by the holder
        await().atMost(30, TimeUnit.SECONDS).until(() -> counted.calls("acquire") > acquires);
        long reads = counted.calls("inspect");
        holder.letGo.countDown();
        await().atMost(30, TimeUnit.SECONDS).until(() -> served.contains("second") || failure.get() != null);
        assertThat(failure.get()).isNull();
        assertThat(counted.calls("inspect") - reads).as("reads of the line after it found itself first").isZero();
    }

    /**
     * Where withdrawals are announced, a fair waiter behind others parks on its line alone: the key's releases, which
     * only the first in line can use, do not wake it, so the store calls at a hand-over are the next holder's. Node b's
     * only waiter watches the key when it registers and once more when it is first, however many take the key before
     * it (a waiter woken by each release watched it after each). Where the store also says whose request was withdrawn
     * (Redis), it reads its line once after registering and watches the key only once it is first (the path before it
     * read the line after each withdrawal, three times here).
     */
    @Test
    void aWaiterBehindOthersIsNotWokenByTheKeysReleases() throws Exception {
        waiterBehindOthers(false);
    }

    /** The same for a task's wait: its tries run on task threads, and a withdrawal heard during one is not lost. */
    @Test
    void aTaskWaitingBehindOthersIsNotWokenByTheKeysReleases() throws Exception {
        waiterBehindOthers(true);
    }

    private void waiterBehindOthers(boolean task) throws Exception {
        LockManager a = node("a");
        InstrumentedStore counted = new InstrumentedStore(store());
        LockManager b = start(nodeBuilder("b", counted).waitPollInterval(Duration.ofMinutes(10)));
        assumeTrue(announcesReleases(LockKey.of(LockLevel.DC, "farm1", clientId, "behind").requests()),
                () -> "store " + store() + " does not announce withdrawn requests: a waiter behind others polls");
        HeldElsewhere holder = holdInThread(a, "behind");
        List<String> served = new CopyOnWriteArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch firstLetsGo = new CountDownLatch(1);
        CountDownLatch secondLetsGo = new CountDownLatch(1);
        holdInTurn(a, "first", served, firstLetsGo, failure);
        await().atMost(30, TimeUnit.SECONDS).until(() -> waitersOf(a, "behind").size() == 1);
        holdInTurn(a, "second", served, secondLetsGo, failure);
        await().atMost(30, TimeUnit.SECONDS).until(() -> waitersOf(a, "behind").size() == 2);
        if (task) {
            b.lockForTaskAsync(fair("behind"), LONG, TaskOptions.named("third")).whenComplete((lock, e) -> {
                if (e != null) {
                    failure.compareAndSet(null, e);
                } else {
                    served.add("third");
                    lock.close();
                }
            });
        } else {
            waitInTurn(b, "third", fair("behind"), served, failure);
        }
        await().atMost(30, TimeUnit.SECONDS).until(() -> waitersOf(a, "behind").size() == 3);

        boolean tellsWhose = tellsWhoseWithdrawal(LockKey.of(LockLevel.DC, "farm1", clientId, "behind").requests());
        long reads = counted.calls("inspect");
        holder.letGo.countDown();
        await().atMost(30, TimeUnit.SECONDS).until(() -> served.size() == 1 || failure.get() != null);
        if (!tellsWhose) {
            // the first's withdrawal woke the third, which read the line again
            await().atMost(30, TimeUnit.SECONDS).until(() -> counted.calls("inspect") > reads);
        }
        firstLetsGo.countDown();
        await().atMost(30, TimeUnit.SECONDS).until(() -> served.size() == 2 || failure.get() != null);
        secondLetsGo.countDown();
        await().atMost(30, TimeUnit.SECONDS).until(() -> served.size() == 3 || failure.get() != null);
        assertThat(failure.get()).isNull();
        assertThat(served).containsExactly("first", "second", "third");
        if (tellsWhose) {
            // where the store says whose request was withdrawn, the third read the line when it asked and once after it
            // registered, and learnt from the two withdrawals before it that it was first; it watched the key only then
            assertThat(counted.calls("inspect")).as("reads of the line by the waiter behind two others")
                    .isLessThanOrEqualTo(2);
            assertThat(counted.lockWatches()).as("watches of the key by the waiter behind two others")
                    .isLessThanOrEqualTo(1);
        } else {
            assertThat(counted.lockWatches()).as("watches of the key by the waiter behind two others")
                    .isLessThanOrEqualTo(2);
        }
    }

    /**
     * A thread of {@code node} that waits fairly for key "behind", notes its name in {@code served}, and holds it until
     * {@code letGo}.
     */
    private void holdInTurn(LockManager node, String name, List<String> served, CountDownLatch letGo,
                            AtomicReference<Throwable> failure) {
        spawn(name, () -> {
            try (LockResource held = node.waitForLock(fair("behind"), LONG)) {
                served.add(name);
                letGo.await();
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        });
    }

    @Test
    void fairWaitersOnTwoNodesAreServedInTheOrderTheyAsked() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        HeldElsewhere holder = holdInThread(a, "turns");
        List<String> served = new CopyOnWriteArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        // alternating nodes: an unfair node would hand the key to its own waiter first
        String[] names = {"b-1", "a-2", "b-3", "a-4"};
        for (int i = 0; i < names.length; i++) {
            waitInTurn(i % 2 == 0 ? b : a, names[i], fair("turns"), served, failure);
            int registered = i + 1;
            await().atMost(30, TimeUnit.SECONDS).until(() -> waitersOf(a, "turns").size() == registered);
        }
        assertThat(waitersOf(b, "turns")).extracting(LockWaiter::ownerName).containsExactly(names);

        holder.letGo.countDown();
        await().atMost(60, TimeUnit.SECONDS).until(() -> served.size() == names.length || failure.get() != null);
        assertThat(failure.get()).isNull();
        assertThat(served).containsExactly(names);
        await().atMost(30, TimeUnit.SECONDS).until(() -> a.getWaiters().isEmpty());
    }

    @Test
    void aWaitingWriterIsNotOvertakenByLaterReaders() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        HeldElsewhere reader = holdInThread("reader", () -> a.lock(LockSpec.shared("doc")), false);
        List<String> served = new CopyOnWriteArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        waitInTurn(b, "writer", fair("doc"), served, failure);
        await().atMost(30, TimeUnit.SECONDS).until(() -> waitersOf(a, "doc").size() == 1);

        assertThatThrownBy(() -> a.lock(LockSpec.shared("doc").fair(true)))
                .as("a later fair reader waits behind the writer").isInstanceOf(AlreadyLockedException.class)
                .hasMessageContaining("writer");
        try (LockResource unfair = a.lock(LockSpec.shared("doc"))) {
            assertThat(unfair.getLock().getMode()).as("an unfair reader does not look at the line")
                    .isEqualTo(LockMode.SHARED);
        }
        reader.letGo.countDown();
        await().atMost(30, TimeUnit.SECONDS).until(() -> served.contains("writer") || failure.get() != null);
        assertThat(failure.get()).isNull();
    }

    @Test
    void aWaitingRequestOnAParentKeepsNewLocksBelowItOut() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        HeldElsewhere below = holdInThread("below", () -> a.lock(LockSpec.path("site/page-1", LockMode.EXCLUSIVE)),
                false);
        List<String> served = new CopyOnWriteArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        waitInTurn(b, "site-writer", fair("site"), served, failure);
        await().atMost(30, TimeUnit.SECONDS).until(() -> waitersOf(a, "site").size() == 1);

        assertThatThrownBy(() -> a.lock(LockSpec.path("site/page-2", LockMode.EXCLUSIVE).fair(true)))
                .as("a new fair lock below the waiting parent").isInstanceOf(AlreadyLockedException.class);
        assertThat(a.getLocks()).as("the refused path gave its intention back")
                .noneMatch(lock -> lock.getKey().equals("site/page-2"));
        below.letGo.countDown();
        await().atMost(30, TimeUnit.SECONDS).until(() -> served.contains("site-writer") || failure.get() != null);
        assertThat(failure.get()).isNull();
    }

    @Test
    void aFairTaskWaitRegistersAndWithdrawsWhenCancelled() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        try (LockResource held = a.lock("batch")) {
            CompletableFuture<TaskLock> waiting = b.lockForTaskAsync(fair("batch"), LONG, TaskOptions.named("nightly"))
                    .toCompletableFuture();
            await().atMost(30, TimeUnit.SECONDS).until(() -> waitersOf(a, "batch").size() == 1);
            assertThat(waitersOf(a, "batch").get(0).ownerName()).isEqualTo("task:nightly");
            waiting.cancel(false);
            await().atMost(30, TimeUnit.SECONDS).until(() -> a.getWaiters().isEmpty());
        }
    }

    @Test
    void aDeadlockOfTwoOwnersOnTwoNodesEndsOneWaitNamingTheCycle() throws Exception {
        LockManager a = quickNode("a");
        LockManager b = quickNode("b");
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<String> served = new CopyOnWriteArrayList<>();
        CountDownLatch bothHold = new CountDownLatch(2);
        spawn("owner-1", () -> holdThenWait(a, "left", "right", bothHold, served, failures));
        spawn("owner-2", () -> holdThenWait(b, "right", "left", bothHold, served, failures));

        await().atMost(60, TimeUnit.SECONDS).until(() -> failures.size() + served.size() == 2);
        assertThat(failures).hasSize(1);
        assertThat(served).hasSize(1);
        assertThat(failures.get(0)).isInstanceOf(LockManagerException.class)
                .hasMessageContaining("DEADLOCK").hasMessageContaining("left").hasMessageContaining("right");
        assertThat(((LockManagerException) failures.get(0)).getErrorCode())
                .isEqualTo(LockManagerException.ErrorCode.DEADLOCK);
    }

    @Test
    void aDeadlockOfThreeOwnersEndsOneWait() throws Exception {
        LockManager a = quickNode("a");
        LockManager b = quickNode("b");
        LockManager c = quickNode("c");
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<String> served = new CopyOnWriteArrayList<>();
        CountDownLatch allHold = new CountDownLatch(3);
        spawn("owner-1", () -> holdThenWait(a, "k1", "k2", allHold, served, failures));
        spawn("owner-2", () -> holdThenWait(b, "k2", "k3", allHold, served, failures));
        spawn("owner-3", () -> holdThenWait(c, "k3", "k1", allHold, served, failures));

        await().atMost(60, TimeUnit.SECONDS).until(() -> failures.size() + served.size() == 3);
        assertThat(failures).hasSize(1).allMatch(e -> e instanceof LockManagerException m
                && m.getErrorCode() == LockManagerException.ErrorCode.DEADLOCK);
        assertThat(failures.get(0)).hasMessageContaining("a cycle of 3 waits");
    }

    /**
     * A task (known by its name) holds a key and waits for a path whose parent a thread of another node holds; that
     * thread waits for the task's key: one cycle, through a path's ancestor and a task owner.
     */
    @Test
    void aDeadlockThroughATaskAndAPathsAncestorEndsOneWait() throws Exception {
        LockManager a = quickNode("a");
        LockManager b = quickNode("b");
        TaskLock held = a.lockForTask(LockSpec.of("ledger"), TaskOptions.named("mover"));
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<String> served = new CopyOnWriteArrayList<>();
        CountDownLatch parentHeld = new CountDownLatch(1);
        spawn("tree-owner", () -> {
            try (LockResource parent = b.lock("tree")) {
                parentHeld.countDown();
                try (LockResource ledger = b.waitForLock(fair("ledger"), LONG)) {
                    served.add("tree-owner");
                }
            } catch (Throwable e) {
                failures.add(e);
            }
        });
        assertThat(parentHeld.await(30, TimeUnit.SECONDS)).isTrue();
        await().atMost(30, TimeUnit.SECONDS).until(() -> waitersOf(a, "ledger").size() == 1);
        CompletableFuture<TaskLock> leaf = a.lockForTaskAsync(LockSpec.path("tree/leaf", LockMode.EXCLUSIVE)
                .fair(true), LONG, TaskOptions.named("mover")).toCompletableFuture();

        Throwable ended = await().atMost(60, TimeUnit.SECONDS).until(() -> leaf.isDone() ? leaf.handle((l, e) -> e)
                .join() : null, e -> e != null);
        assertThat(ended).isInstanceOf(LockManagerException.class).hasMessageContaining("DEADLOCK")
                .hasMessageContaining("tree").hasMessageContaining("ledger").hasMessageContaining("task:mover");
        held.close();
        await().atMost(30, TimeUnit.SECONDS).until(() -> served.contains("tree-owner") || !failures.isEmpty());
        assertThat(failures).isEmpty();
    }

    /** Holds {@code first}, waits until every owner holds its own, then waits fairly for {@code second}. */
    private static void holdThenWait(LockManager node, String first, String second, CountDownLatch allHold,
                                     List<String> served, List<Throwable> failures) {
        try (LockResource mine = node.lock(first)) {
            allHold.countDown();
            allHold.await();
            try (LockResource other = node.waitForLock(fair(second), LONG)) {
                served.add(Thread.currentThread().getName());
            }
        } catch (Throwable e) {
            failures.add(e);
        }
    }

    /**
     * A chain of waits that is no cycle, looked at for many intervals: A holds k1; B holds k2 and waits for k1; C holds
     * k3 and waits for k2; D waits for k3 behind an earlier request of E's, a reader. Nothing is ended; when A lets go
     * every wait gets its lock in turn.
     */
    @Test
    void waitsThatFormNoCycleAreNeverEndedAsADeadlock() throws Exception {
        LockManager a = quickNode("a");
        LockManager b = quickNode("b");
        HeldElsewhere first = holdInThread(a, "k1");
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<String> served = new CopyOnWriteArrayList<>();
        CountDownLatch holding = new CountDownLatch(2);
        // each waits only once both hold: owner c, quicker, would otherwise find k2 free and take it, and the chain
        // would not be what this case looks at (a run where c took k2, let go, and e then took k3 at once)
        spawn("owner-b", () -> holdThenWait(b, "k2", "k1", holding, served, failures));
        spawn("owner-c", () -> holdThenWait(a, "k3", "k2", holding, served, failures));
        awaitOrDump("owners b and c holding k2 and k3", () -> holding.getCount() == 0, failures);
        assertThat(failures).as("owners b and c hold k2 and k3").isEmpty();
        spawn("owner-e", () -> {
            try (LockResource read = b.waitForLock(LockSpec.shared("k3").fair(true), LONG)) {
                served.add("owner-e");
            } catch (Throwable e) {
                failures.add(e);
            }
        });
        awaitOrDump("owner e waiting for k3", () -> waitersOf(a, "k3").size() == 1, failures);
        assertThat(failures).as("owner e waits").isEmpty();
        spawn("owner-d", () -> {
            try (LockResource write = a.waitForLock(fair("k3"), LONG)) {
                served.add("owner-d");
            } catch (Throwable e) {
                failures.add(e);
            }
        });
        awaitOrDump("every owner waiting", () -> a.getWaiters().size() == 4, failures);
        assertThat(failures).as("every owner waits").isEmpty();
        // three more looks of each node with the chain in place: a false cycle would be seen twice in a row among them
        long looksA = io.github.lockmanager.engine.LockManagerBuilder.admin(a).getDeadlockLooks();
        long looksB = io.github.lockmanager.engine.LockManagerBuilder.admin(b).getDeadlockLooks();
        await().atMost(60, TimeUnit.SECONDS).until(() ->
                io.github.lockmanager.engine.LockManagerBuilder.admin(a).getDeadlockLooks() >= looksA + 3
                        && io.github.lockmanager.engine.LockManagerBuilder.admin(b).getDeadlockLooks() >= looksB + 3);
        assertThat(failures).as("no wait ended").isEmpty();
        assertThat(io.github.lockmanager.engine.LockManagerBuilder.admin(a).getDeadlocksEnded()
                + io.github.lockmanager.engine.LockManagerBuilder.admin(b).getDeadlocksEnded()).isZero();
        first.letGo.countDown();
        awaitOrDump("every owner served", () -> served.size() == 4, failures);
        assertThat(failures).isEmpty();
        assertThat(served).containsExactlyInAnyOrder("owner-b", "owner-c", "owner-d", "owner-e");
    }

    /**
     * Awaits {@code condition} for 60 s, or until an owner's wait fails (one of {@code failures}); if it does not hold,
     * fails naming {@code what} with the failures and the stacks of the test's and the managers' threads, so that a
     * case that ran out of time on a loaded machine says where each one was.
     */
    private static void awaitOrDump(String what, java.util.concurrent.Callable<Boolean> condition,
                                    List<Throwable> failures) {
        try {
            await().atMost(60, TimeUnit.SECONDS).until(() -> condition.call() || !failures.isEmpty());
            if (failures.isEmpty()) {
                return;
            }
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(dump(what + " did not happen within 60 s"), e);
        }
        AssertionError failed = new AssertionError(dump(what + " did not happen: an owner's wait failed"));
        failures.forEach(failed::addSuppressed);
        throw failed;
    }

    /** {@code what}, and the stacks of the test's and the managers' threads. */
    private static String dump(String what) {
        StringBuilder dump = new StringBuilder(what).append("; threads:\n");
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            if (thread.getName().startsWith("owner-") || thread.getName().startsWith("holder-")
                    || thread.getName().startsWith("lockmanager-")) {
                dump.append(thread.getName()).append(' ').append(thread.getState()).append('\n');
                for (StackTraceElement frame : stack) {
                    dump.append("    at ").append(frame).append('\n');
                }
            }
        });
        return dump.toString();
    }

    @Test
    void aSetIsTakenWholeOrNotAtAll() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        List<LockSpec> set = List.of(LockSpec.of("x"), LockSpec.shared("y"), LockSpec.permits("z", 2));
        try (LockResource y = a.lock("y")) {
            assertThatThrownBy(() -> b.waitForAll(set, Duration.ofMillis(300)))
                    .isInstanceOf(AlreadyLockedException.class);
            assertThat(a.getLocks()).as("nothing of the refused set is held").extracting(l -> l.getKey())
                    .containsExactly("y");
        }
        try (LockSet all = b.waitForAll(set, Duration.ofSeconds(30))) {
            assertThat(all.getLocks()).extracting(lock -> lock.getLock().getKey()).containsExactly("x", "y", "z");
            assertThat(all.get(1).getLock().getMode()).isEqualTo(LockMode.SHARED);
            assertThat(a.getLocks()).hasSize(3);
        }
        assertThat(a.getLocks()).isEmpty();
        assertThatThrownBy(() -> b.waitForAll(List.of(LockSpec.of("x"), LockSpec.shared("x")), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
    }

    @Test
    void overlappingSetsTakenAtOnceNeverDeadlockNorHoldPartly() throws Exception {
        List<LockManager> nodes = List.of(node("a"), node("b"));
        List<List<LockSpec>> sets = List.of(
                List.of(LockSpec.of("p"), LockSpec.of("q")),
                List.of(LockSpec.of("q"), LockSpec.of("p")),
                List.of(LockSpec.of("q"), LockSpec.of("r")),
                List.of(LockSpec.of("r"), LockSpec.of("p")));
        AtomicInteger taken = new AtomicInteger();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < sets.size(); t++) {
            LockManager node = nodes.get(t % 2);
            List<LockSpec> set = sets.get(t);
            threads.add(spawn("set-" + t, () -> {
                try {
                    for (int i = 0; i < 10; i++) {
                        try (LockSet all = node.waitForAll(set, LONG)) {
                            assertThat(all.isLost()).isFalse();
                            taken.incrementAndGet();
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join(TimeUnit.MINUTES.toMillis(3));
        }
        assertThat(failures).isEmpty();
        assertThat(taken).hasValue(40);
        assertThat(nodes.get(0).getLocks()).isEmpty();
    }
}
