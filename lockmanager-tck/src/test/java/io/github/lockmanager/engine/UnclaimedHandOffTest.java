package io.github.lockmanager.engine;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.memory.InMemoryLockStore;
import io.github.lockmanager.testing.ContractNodes;
import io.github.lockmanager.testing.support.InstrumentedStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A record kept for a waiter of its node that wakes and does not claim it (interrupted at that moment) is released
 * by the manager's sweep, or by close. The waiter is placed here through the table, the one way to wait without
 * claiming: no public call stops between waking and claiming.
 */
class UnclaimedHandOffTest extends ContractNodes {
    private final InMemoryLockStore store = new InMemoryLockStore();

    @Override
    protected LockStore store() {
        return store;
    }

    @Test
    void aRecordKeptForAWaiterThatDoesNotTakeItIsReleased() throws Exception {
        InstrumentedStore instrumented = new InstrumentedStore(store());
        LockManager a = start(nodeBuilder("a", instrumented));
        LockManager b = node("b");
        HeldElsewhere held = holdInThread(a, "job");
        waitWithoutLocking(a, "job");
        long releases = instrumented.calls("release");

        held.letGo.countDown();

        await().atMost(Duration.ofSeconds(30)).until(() -> instrumented.calls("release") == releases + 1);
        assertThat(b.lock("job").isNewLock()).isTrue();
    }

    @Test
    void aRecordLeftUnclaimedWhileTheSweepForAnEarlierHandOffIsPendingIsReleasedToo() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        HeldElsewhere holder = holdInThread(a, "job");
        HeldElsewhere waiter = waitInThread(a, "job", "waiter");
        holder.letGo.countDown();
        assertThat(waiter.acquired.await(30, TimeUnit.SECONDS)).isTrue();
        // parked within the claim window of the hand-off above: the sweep that hand-off scheduled finds it too young
        // to release, and must come again for it
        HeldElsewhere reporter = holdInThread(a, "report");
        waitWithoutLocking(a, "report");
        reporter.letGo.countDown();

        // the lease is 30 s: only the manager's own clean-up can free the key this soon
        await().atMost(Duration.ofSeconds(10)).until(() -> !b.isLocked("report"));
        waiter.letGo.countDown();
    }

    @Test
    void aRecordKeptForAWaiterIsReleasedWhenTheManagerCloses() throws Exception {
        LockManager a = node("a");
        LockManager b = node("b");
        HeldElsewhere held = holdInThread(a, "job");
        waitWithoutLocking(a, "job");
        held.letGo.countDown();
        held.thread.join(30_000);

        // stops the keeper, which would release the kept record 200 to 400 ms later: only close itself can have freed it
        a.close();

        assertThat(b.lock("job").isNewLock()).isTrue();
    }

    /** A waiter of {@code node} queued for its holder of {@code key}, which does not lock when woken. */
    private void waitWithoutLocking(LockManager node, String key) {
        LockKey storeKey = LockKey.of(node.getDefaultLevel(), "farm1", clientId, key);
        ((LockEngine) node).waitQueue().add(new Waiter(storeKey, LockMode.EXCLUSIVE, Long.MAX_VALUE, null) {
            @Override
            void wake() {
            }

            @Override
            boolean isDone() {
                return false;
            }
        });
    }
}
