package io.github.lockmanager.engine;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.store.memory.InMemoryLockStore;
import io.github.lockmanager.store.support.ForwardingLockStore;
import io.github.lockmanager.testing.support.InstrumentedStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A grant answered after its lease ended is given back and refused to the caller; the store's release then says the
 * record is no longer this acquisition's (its lease ended), and that is no loss: nobody held the lock. A loaded CI
 * run logged it as a lost lock and failed in the loss listener's call for a grant that never reached its caller.
 */
class LateGrantTest {
    @Test
    void aGrantRefusedAsTooLateIsNoLossWhenTheStoreNoLongerHasIt() throws Exception {
        Duration lease = Duration.ofSeconds(1);
        InstrumentedStore slow = new InstrumentedStore(new ForwardingLockStore(new InMemoryLockStore()) {
            @Override
            public boolean release(LockHandle handle) throws LockManagerException {
                super.release(handle);
                // as a store whose record's lease ended by its clock: not this acquisition's any more
                return false;
            }
        });
        List<Object> told = new CopyOnWriteArrayList<>();
        try (StderrLog log = new StderrLog();
             LockManager node = LockManagerBuilder.newBuilder().store(slow).nodeId("a").lease(lease)
                     .lossListener((lock, holder, reason) -> told.add(reason)).build()) {
            slow.delayAcquireAnswers(lease.plusMillis(200));
            assertThatThrownBy(() -> node.lock("job")).isInstanceOf(LockManagerException.class)
                    .hasMessageContaining("too close to its lease");
            assertThat(told).as("losses told").isEmpty();
            assertThat(log.text()).as("what the node logged").doesNotContain("LOST").doesNotContain("listener failed");
            slow.delayAcquireAnswers(Duration.ZERO);
            try (LockResource lock = node.lock("job")) {
                assertThat(lock.isNewLock()).isTrue();
            }
        }
    }
}
