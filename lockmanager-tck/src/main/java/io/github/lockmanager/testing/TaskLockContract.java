package io.github.lockmanager.testing;

import io.github.lockmanager.testing.support.InstrumentedStore;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.Lock;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.TaskLock;
import io.github.lockmanager.TaskLockListener;
import io.github.lockmanager.TaskOptions;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Locks owned by a task, not a thread ({@link LockManager#lockForTask}, {@link LockManager#lockForTaskAsync}): released
 * from any thread, told of losses and aborts with no thread to interrupt, released when the task says it is no longer
 * active, and waited for without a thread per waiter; on every store.
 */
public abstract class TaskLockContract extends ContractNodes {

    /** Records what a task's listener is told, in order. */
    static class Told implements TaskLockListener {
        final BlockingQueue<String> events = new LinkedBlockingQueue<>();

        @Override
        public void abortRequested(Lock lock) {
            events.add("abort " + lock.getKey());
        }

        @Override
        public void lost(Lock lock, LockLossReason reason) {
            events.add("lost " + reason);
        }

        @Override
        public void released(Lock lock) {
            events.add("released " + lock.getKey());
        }

        String next() throws InterruptedException {
            return events.poll(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aTaskLockIsHeldByNoThreadAndReleasedFromAnyThread() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        Told told = new Told();
        TaskLock lock = a.lockForTask(LockSpec.of("job").at(LockLevel.DC), TaskOptions.named("export").listener(told));

        assertThat(lock.getHolder()).isNull();
        assertThat(lock.getTaskName()).isEqualTo("export");
        assertThat(lock.getLock().getHolderThreadName()).isEqualTo("task:export");
        assertThat(lock.getFencingToken()).isPositive();
        assertThat(b.getLocks()).extracting(Lock::getHolderThreadName).contains("task:export");
        assertThatThrownBy(() -> a.lock("job")).as("a thread of the task's node").isInstanceOf(AlreadyLockedException.class);
        assertThatThrownBy(() -> a.lockForTask(LockSpec.of("job").at(LockLevel.DC), TaskOptions.named("again")))
                .as("a task lock is never re-entered").isInstanceOf(AlreadyLockedException.class);
        assertThatThrownBy(() -> b.lock("job")).as("another node").isInstanceOf(AlreadyLockedException.class);

        CompletableFuture.runAsync(lock::close).get(30, TimeUnit.SECONDS);

        assertThat(lock.whenEnded().toCompletableFuture().get(30, TimeUnit.SECONDS)).as("released, not lost").isNull();
        assertThat(told.next()).isEqualTo("released job");
        try (LockResource next = b.lock("job")) {
            assertThat(next.getFencingToken()).isGreaterThan(lock.getFencingToken());
        }
    }

    @Test
    void aTaskLockHeldAtLeastKeepsItsKeyLockedAfterTheTaskIsDone() throws Exception {
        LockManager a = start(nodeBuilder("a", new InstrumentedStore(store())).renewalInterval(Duration.ofMillis(200)));
        LockManager b = node("b");
        TaskLock lock = a.lockForTask(LockSpec.of("job").at(LockLevel.DC), TaskOptions.named("export"));

        lock.closeHeldAtLeast(Duration.ofSeconds(2));

        assertThat(lock.whenEnded().toCompletableFuture().get(30, TimeUnit.SECONDS)).isNull();
        assertThatThrownBy(() -> b.lock("job")).as("kept after the task let go").isInstanceOf(AlreadyLockedException.class);
        await().atMost(Duration.ofSeconds(30)).ignoreExceptionsInstanceOf(AlreadyLockedException.class)
                .until(() -> {
                    b.lock("job").close();
                    return true;
                });
    }

    @Test
    void aTaskLockLostWhileNoThreadIsInsideEndsItsStageTellsItsListenerAndRefusesWork() throws Exception {
        InstrumentedStore store = new InstrumentedStore(store());
        LockManager a = start(nodeBuilder("a", store).lease(Duration.ofSeconds(3)).renewalInterval(Duration.ofMillis(200)));
        Told told = new Told();
        TaskLock lock = a.lockForTask(LockSpec.of("job").at(LockLevel.DC), TaskOptions.named("export").listener(told));

        store.setRenewalsLost(true);

        assertThat(lock.whenEnded().toCompletableFuture().get(30, TimeUnit.SECONDS)).isEqualTo(LockLossReason.NOT_OWNED);
        assertThat(told.next()).isEqualTo("lost NOT_OWNED");
        assertThat(lock.isLost()).isTrue();
        assertThatThrownBy(lock::guard).isInstanceOf(LockLostException.class);
        lock.close();
        assertThat(store.calls("release")).as("a lost lock's close writes nothing").isZero();
        assertThat(told.events).as("told once").isEmpty();
    }

    @Test
    void anAbortFromAnotherNodeTellsTheTaskAndLeavesItsLockHeld() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        Told told = new Told();
        TaskLock lock = a.lockForTask(LockSpec.of("job").at(LockLevel.DC), TaskOptions.named("export").listener(told));
        java.util.concurrent.CompletableFuture<Void> aborted = lock.whenAbortRequested().toCompletableFuture();
        assertThat(aborted).isNotDone();

        b.abort("job");

        assertThat(told.next()).isEqualTo("abort job");
        assertThat(lock.isAbortRequested()).isTrue();
        aborted.get(30, TimeUnit.SECONDS);
        assertThat(lock.whenAbortRequested().toCompletableFuture()).as("a stage asked for later").isDone();
        assertThat(lock.isLost()).isFalse();
        assertThat(lock.whenEnded().toCompletableFuture()).isNotDone();
        assertThatThrownBy(() -> b.lock("job")).isInstanceOf(AlreadyLockedException.class);
        lock.releaseAsync().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertThat(told.next()).isEqualTo("released job");
        b.lock("job").close();
    }

    @Test
    void aTaskThatSaysItIsNoLongerActiveHasItsLockReleased() throws Exception {
        LockManager a = start(nodeBuilder("a", new InstrumentedStore(store())).renewalInterval(Duration.ofMillis(200)));
        LockManager b = node("b");
        AtomicBoolean active = new AtomicBoolean(true);
        Told told = new Told();
        TaskLock lock = a.lockForTask(LockSpec.of("job").at(LockLevel.DC), TaskOptions.named("export").activeWhile(active::get)
                .listener(told));

        active.set(false);

        assertThat(lock.whenEnded().toCompletableFuture().get(30, TimeUnit.SECONDS)).as("released, not lost").isNull();
        assertThat(told.next()).isEqualTo("released job");
        assertThat(lock.isLost()).isFalse();
        b.lock("job").close();
    }

    @Test
    void waitersParkNoThreadAndALocalReleaseWakesTheNextAtOnce() throws Exception {
        // a poll interval far beyond the test's patience: only the release itself can wake a waiter in time
        LockManager a = start(nodeBuilder("a", new InstrumentedStore(store())).waitPollInterval(Duration.ofMinutes(10)));
        TaskLock first = a.lockForTask(LockSpec.of("job").at(LockLevel.DC), TaskOptions.named("first"));
        Set<Thread> threadsBefore = Thread.getAllStackTraces().keySet();
        List<CompletableFuture<TaskLock>> waiters = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            waiters.add(a.lockForTaskAsync(LockSpec.of("job").at(LockLevel.DC), Duration.ofMinutes(5), TaskOptions.named("w" + i))
                    .toCompletableFuture());
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> tasksThreads("a") > 0);
        assertThat(tasksThreads("a")).as("task threads").isLessThanOrEqualTo(2);
        assertThat(Thread.getAllStackTraces().keySet()).as("threads other than the task threads added for 50 waiters")
                .filteredOn(t -> !threadsBefore.contains(t) && !t.getName().equals("lockmanager-a-tasks")
                        && !t.getName().equals("awaitility-thread")).isEmpty();
        assertThat(waiters).noneMatch(CompletableFuture::isDone);

        // each waiter releases as soon as it holds, in whatever order they are woken: every one gets the key in turn
        List<CompletableFuture<Long>> tokens = new ArrayList<>();
        for (CompletableFuture<TaskLock> waiter : waiters) {
            tokens.add(waiter.thenApply(lock -> {
                lock.close();
                return lock.getFencingToken();
            }));
        }
        first.close();
        for (CompletableFuture<Long> token : tokens) {
            assertThat(token.get(30, TimeUnit.SECONDS)).isGreaterThan(first.getFencingToken());
        }
    }

    @Test
    void aWaiterForAnotherNodeGetsTheKeyOnceReleasedAndTimesOutOtherwise() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        LockResource held = b.lock("job");
        assertThatThrownBy(() -> a.lockForTaskAsync(LockSpec.of("job").at(LockLevel.DC), Duration.ofMillis(300), TaskOptions.named("t"))
                .toCompletableFuture().get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(AlreadyLockedException.class);

        CompletableFuture<TaskLock> waiter = a.lockForTaskAsync(LockSpec.of("job").at(LockLevel.DC), Duration.ofMinutes(1),
                TaskOptions.named("t")).toCompletableFuture();
        held.close();
        waiter.get(30, TimeUnit.SECONDS).close();
    }

    @Test
    void aWaiterForAnotherNodeIsWokenByTheStoresAnnouncementWhereItHasThem() throws Exception {
        LockStore store = store();
        LockManager b = node("b");
        LockResource held = b.lock("job");
        LockKey key = LockKey.of(LockLevel.DC, "farm1", clientId, "job");
        Runnable unwatch = store.watchRelease(key, () -> { });
        assumeTrue(unwatch != null, () -> "store " + store + " does not announce releases: its waiters poll");
        unwatch.run();
        // through a wrapper, which passes the watch on, and with a poll interval beyond the test's patience
        LockManager a = start(nodeBuilder("a", new InstrumentedStore(store)).waitPollInterval(Duration.ofMinutes(10)));
        CompletableFuture<TaskLock> waiter = a.lockForTaskAsync(LockSpec.of("job").at(LockLevel.DC), Duration.ofMinutes(5),
                TaskOptions.named("t")).toCompletableFuture();
        await().pollDelay(Duration.ofMillis(500)).atMost(Duration.ofSeconds(30)).until(() -> !waiter.isDone());

        held.close();

        waiter.get(30, TimeUnit.SECONDS).close();
    }

    @Test
    void cancellingAWaitEndsItAndLeavesNothingHeld() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        TaskLock first = a.lockForTask(LockSpec.of("job").at(LockLevel.DC), TaskOptions.named("first"));
        CompletableFuture<TaskLock> waiter = a.lockForTaskAsync(LockSpec.of("job").at(LockLevel.DC), Duration.ofMinutes(5),
                TaskOptions.named("second")).toCompletableFuture();

        assertThat(waiter.cancel(false)).isTrue();
        first.close();

        assertThatThrownBy(waiter::join).isInstanceOf(CancellationException.class);
        await().atMost(Duration.ofSeconds(30)).until(() -> !b.isLocked("job"));
        b.lock("job").close();
    }

    @Test
    void closeAsksTasksToStopFailsWaitsAndLeavesNoThread() throws Exception {
        LockManager a = node("closing");
        TaskLock[] holder = new TaskLock[1];
        Told told = new Told() {
            @Override
            public void abortRequested(Lock lock) {
                super.abortRequested(lock);
                holder[0].close();
            }
        };
        holder[0] = a.lockForTask(LockSpec.of("job").at(LockLevel.DC), TaskOptions.named("export").listener(told));
        CompletableFuture<TaskLock> waiter = a.lockForTaskAsync(LockSpec.of("job").at(LockLevel.DC), Duration.ofMinutes(5),
                TaskOptions.named("second")).toCompletableFuture();
        await().atMost(Duration.ofSeconds(30)).until(() -> tasksThreads("closing") > 0);

        a.close();

        assertThat(told.next()).isEqualTo("abort job");
        assertThat(told.next()).isEqualTo("released job");
        assertThatThrownBy(waiter::join).hasCauseInstanceOf(IllegalStateException.class);
        assertThat(tasksThreads("closing")).as("task threads left").isZero();
        assertThatThrownBy(() -> a.lockForTaskAsync(LockSpec.of("job").at(LockLevel.DC), Duration.ZERO, TaskOptions.named("late")))
                .isInstanceOf(IllegalStateException.class);
        LockManager b = node("b");
        b.lock("job").close();
    }

    @Test
    void badTaskInputIsRefusedWhereItEnters() {
        assertThatThrownBy(() -> TaskOptions.named(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> TaskOptions.named("x".repeat(TaskOptions.MAX_NAME_LENGTH + 1)))
                .hasMessageContaining("at most " + TaskOptions.MAX_NAME_LENGTH);
        assertThatThrownBy(() -> TaskOptions.named("a\nb")).hasMessageContaining("control");
        // the rule of every id: a name no store or log line keeps as given is refused, not stored as '?'
        assertThatThrownBy(() -> TaskOptions.named("a\uD800")).hasMessageContaining("unpaired surrogate");
        assertThatThrownBy(() -> TaskOptions.named("a\u0085")).hasMessageContaining("control");
        assertThatThrownBy(() -> TaskOptions.named("t").activeWhile(null)).hasMessageContaining("active check");
    }

    private static long tasksThreads(String nodeId) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("lockmanager-" + nodeId + "-tasks") && t.isAlive()).count();
    }
}
