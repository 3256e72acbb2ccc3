package io.github.lockmanager.engine;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.store.memory.InMemoryLockStore;
import io.github.lockmanager.testing.support.InstrumentedStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The keeper and the watchdog speed up for a lease shorter than the manager's: at the manager's pace (every 5 s) a
 * lock with a 3 s lease would be declared lost before its first renewal.
 */
class CallLeaseCadenceTest {

    @Test
    void aLeaseShorterThanTheKeepersPaceIsRenewedInTime() throws Exception {
        InstrumentedStore store = new InstrumentedStore(new InMemoryLockStore());
        try (LockManager manager = LockManagerBuilder.newBuilder().store(store).nodeId("a")
                .lease(Duration.ofSeconds(60)).abortPollInterval(Duration.ofSeconds(5)).build()) {
            LockResource lock = manager.lock(LockSpec.of("job").at(LockLevel.DC).lease(Duration.ofSeconds(3)));

            await().atMost(Duration.ofSeconds(30)).until(() -> store.calls("renew") >= 3 || lock.isLost());

            assertThat(lock.isLost()).as("renewed every second, before the watchdog's deadline").isFalse();
            lock.close();
        }
    }
}
