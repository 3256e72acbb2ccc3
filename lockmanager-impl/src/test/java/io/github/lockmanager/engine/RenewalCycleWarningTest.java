package io.github.lockmanager.engine;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.store.memory.InMemoryLockStore;
import io.github.lockmanager.store.support.ForwardingLockStore;
import io.github.lockmanager.testing.support.ManualTimeSource;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The operator is warned, with the figures, when renewing takes long enough to put the locks at risk. */
class RenewalCycleWarningTest {

    @Test
    void aRenewalCycleLongerThanAQuarterOfTheLeaseIsReportedBeforeAnyLockIsLost() throws Exception {
        ManualTimeSource time = new ManualTimeSource();
        // each renewal takes 3 s of a 10 s lease on the manual clock, as a store slowed by a bad plan would
        ForwardingLockStore slow = new ForwardingLockStore(new InMemoryLockStore(time)) {
            @Override
            public Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) throws LockManagerException {
                time.advance(Duration.ofSeconds(3));
                return super.renew(handles, lease);
            }
        };
        PrintStream original = System.err;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
        try (LockManager node = LockManagerBuilder.newBuilder().store(slow).timeSource(time).nodeId("slow")
                .lease(Duration.ofSeconds(10)).build();
             LockResource held = node.lock("report")) {
            time.advance(Duration.ofSeconds(4));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> log.toString(StandardCharsets.UTF_8).contains("more than a quarter of the lease"));
            assertThat(log.toString(StandardCharsets.UTF_8)).contains("Renewing the 1 locks of node 'slow' took 3000 ms in 1 store calls")
                    .contains("(10000 ms)");
            assertThat(held.isLost()).as("warned before any loss").isFalse();
        } finally {
            System.setErr(original);
            original.print(log.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void aFailedStoreCallNamesThePaceTheKeeperRunsAtForTheShortestLease() throws Exception {
        ManualTimeSource time = new ManualTimeSource();
        ForwardingLockStore down = new ForwardingLockStore(new InMemoryLockStore(time)) {
            @Override
            public Map<LockHandle, HoldState> check(List<LockHandle> handles) throws LockManagerException {
                throw new LockManagerException(ErrorCode.CONNECTION_ERROR, "store down");
            }
        };
        PrintStream original = System.err;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
        // the manager's tick is 5 s; a 3 s lease makes its keeper run every second
        try (LockManager node = LockManagerBuilder.newBuilder().store(down).timeSource(time).nodeId("paced")
                .lease(Duration.ofSeconds(60)).build();
             LockResource held = node.lock(LockSpec.of("report").at(LockLevel.DC).lease(Duration.ofSeconds(3)))) {
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> log.toString(StandardCharsets.UTF_8).contains("Could not check 1 locks of node 'paced'"));
            assertThat(log.toString(StandardCharsets.UTF_8)).contains("Retrying every PT1S");
        } finally {
            System.setErr(original);
            original.print(log.toString(StandardCharsets.UTF_8));
        }
    }
}
