package io.github.lockmanager.testing;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.Lock;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.TaskLock;
import io.github.lockmanager.TaskOptions;
import io.github.lockmanager.testing.support.InstrumentedStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Task locks in every mode ({@link LockManager#lockForTask}, {@link LockManager#lockForTaskAsync} with a shared, a
 * permit or a path {@link LockSpec}), beside thread locks of the same keys and other nodes: each task lock is a holder
 * of its own, counted, told and released as an exclusive one is; on every store.
 */
public abstract class TaskModeContract extends ContractNodes {

    @Test
    void tasksAndThreadsHoldAKeySharedTogetherAndKeepWritersOut() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        TaskLockContract.Told told = new TaskLockContract.Told();
        TaskLock first = a.lockForTask(LockSpec.shared("doc"), TaskOptions.named("reader-1").listener(told));
        TaskLock second = a.lockForTask(LockSpec.shared("doc"), TaskOptions.named("reader-2"));
        TaskLock elsewhere = b.lockForTask(LockSpec.shared("doc"), TaskOptions.named("reader-3"));

        try (LockResource thread = a.lock(LockSpec.shared("doc"))) {
            assertThat(b.getLocks()).filteredOn(lock -> lock.getKey().equals("doc")).hasSize(4)
                    .allMatch(lock -> lock.getMode() == LockMode.SHARED);
            assertThat(first.getLock().getMode()).isEqualTo(LockMode.SHARED);
            assertThatThrownBy(() -> a.lockForTask(LockSpec.of("doc"), TaskOptions.named("writer")))
                    .isInstanceOf(AlreadyLockedException.class);
            assertThatThrownBy(() -> b.lock("doc")).isInstanceOf(AlreadyLockedException.class);
        }
        first.close();
        assertThat(first.whenEnded().toCompletableFuture().get(30, TimeUnit.SECONDS)).isNull();
        assertThat(told.next()).isEqualTo("released doc");
        assertThatThrownBy(() -> b.lock("doc")).as("two readers left").isInstanceOf(AlreadyLockedException.class);
        second.close();
        elsewhere.releaseAsync().toCompletableFuture().get(30, TimeUnit.SECONDS);
        try (LockResource writer = b.lock("doc")) {
            assertThat(writer.getFencingToken()).isGreaterThan(elsewhere.getFencingToken());
        }
    }

    @Test
    void taskPermitsCountWithThreadPermitsOnEveryNode() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        TaskLock task = a.lockForTask(LockSpec.permits("pool", 2), TaskOptions.named("crawler"));
        try (LockResource thread = b.lock(LockSpec.permits("pool", 2))) {
            assertThat(task.getLock().getPermits()).isEqualTo(2);
            assertThatThrownBy(() -> b.lockForTask(LockSpec.permits("pool", 2), TaskOptions.named("third")))
                    .as("both permits held").isInstanceOf(AlreadyLockedException.class);
            assertThatThrownBy(() -> a.lockForTask(LockSpec.permits("pool", 3), TaskOptions.named("other")))
                    .as("another number than the holders'").isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("3").hasMessageContaining("2");
        }
        TaskLock third = b.lockForTask(LockSpec.permits("pool", 2), TaskOptions.named("third"));
        assertThat(third.getLock().getHolderThreadName()).isEqualTo("task:third");
        task.close();
        third.close();
        assertThat(a.getLocks()).noneMatch(lock -> lock.getKey().equals("pool"));
    }

    @Test
    void aTaskPathLockTakesIntentionsOnItsAncestorsAndGivesThemAllBack() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        TaskLockContract.Told told = new TaskLockContract.Told();
        TaskLock order = a.lockForTask(LockSpec.path("region/eu/order-1", LockMode.EXCLUSIVE),
                TaskOptions.named("billing").listener(told));

        assertThat(order.getLock().getKey()).isEqualTo("region/eu/order-1");
        assertThat(b.getLocks()).extracting(Lock::getKey, Lock::getMode).contains(
                org.assertj.core.groups.Tuple.tuple("region", LockMode.INTENT_EXCLUSIVE),
                org.assertj.core.groups.Tuple.tuple("region/eu", LockMode.INTENT_EXCLUSIVE),
                org.assertj.core.groups.Tuple.tuple("region/eu/order-1", LockMode.EXCLUSIVE));
        assertThatThrownBy(() -> b.lock("region/eu")).as("an ancestor").isInstanceOf(AlreadyLockedException.class);
        try (LockResource sibling = b.lock(LockSpec.path("region/eu/order-2", LockMode.EXCLUSIVE))) {
            assertThat(sibling.getLock().getKey()).isEqualTo("region/eu/order-2");
        }

        order.close();

        assertThat(order.whenEnded().toCompletableFuture().get(30, TimeUnit.SECONDS)).isNull();
        assertThat(told.next()).isEqualTo("released region/eu/order-1");
        b.lock("region").close();
        assertThat(told.events).as("told once for the whole path").isEmpty();
    }

    @Test
    void aPathRefusedHalfWayGivesItsStepsBackAndTellsItsTaskNothing() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        TaskLockContract.Told told = new TaskLockContract.Told();
        try (LockResource held = b.lock("region/eu")) {
            assertThatThrownBy(() -> a.lockForTask(LockSpec.path("region/eu/order-1", LockMode.SHARED),
                    TaskOptions.named("report").listener(told))).isInstanceOf(AlreadyLockedException.class);
        }
        b.lock("region").close();
        assertThat(a.getLocks()).isEmpty();
        assertThat(told.events).isEmpty();
    }

    @Test
    void aTaskWaitsForAPermitOrAPathWithoutAThread() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        HeldElsewhere permit = holdInThread("permit-holder", () -> b.lock(LockSpec.permits("pool", 1)), false);
        HeldElsewhere ancestor = holdInThread("ancestor-holder", () -> a.lock("region/eu"), false);

        CompletableFuture<TaskLock> forPermit = a.lockForTaskAsync(LockSpec.permits("pool", 1), Duration.ofSeconds(60),
                TaskOptions.named("waiter-1")).toCompletableFuture();
        CompletableFuture<TaskLock> forPath = a.lockForTaskAsync(LockSpec.path("region/eu/order-1",
                LockMode.EXCLUSIVE), Duration.ofSeconds(60), TaskOptions.named("waiter-2")).toCompletableFuture();
        assertThat(forPermit).isNotDone();
        assertThat(forPath).isNotDone();

        permit.letGo.countDown();
        ancestor.letGo.countDown();

        try (TaskLock gotPermit = forPermit.get(60, TimeUnit.SECONDS);
             TaskLock gotPath = forPath.get(60, TimeUnit.SECONDS)) {
            assertThat(gotPermit.getLock().getMode()).isEqualTo(LockMode.PERMIT);
            assertThat(gotPath.getLock().getKey()).isEqualTo("region/eu/order-1");
        }
    }

    @Test
    void aSharedTaskLockLostOrAbortedIsToldToItsTask() throws Exception {
        InstrumentedStore store = new InstrumentedStore(store());
        LockManager a = start(nodeBuilder("a", store).lease(Duration.ofSeconds(3)).renewalInterval(Duration.ofMillis(200)));
        LockManager b = node("b");
        TaskLockContract.Told told = new TaskLockContract.Told();
        TaskLock lock = a.lockForTask(LockSpec.path("region/eu", LockMode.SHARED),
                TaskOptions.named("reader").listener(told));

        b.abort("region/eu");
        assertThat(lock.whenAbortRequested().toCompletableFuture().get(30, TimeUnit.SECONDS)).isNull();
        assertThat(told.next()).isEqualTo("abort region/eu");

        store.setRenewalsLost(true);

        assertThat(lock.whenEnded().toCompletableFuture().get(30, TimeUnit.SECONDS))
                .isEqualTo(LockLossReason.NOT_OWNED);
        assertThat(told.next()).isEqualTo("lost NOT_OWNED");
        assertThat(lock.isLost()).isTrue();
        lock.close();
        assertThat(told.events.poll(200, TimeUnit.MILLISECONDS)).as("a lost lock is told once").isNull();
    }
}
