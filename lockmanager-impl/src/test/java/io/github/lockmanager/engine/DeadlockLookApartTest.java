package io.github.lockmanager.engine;

import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.store.memory.InMemoryLockStore;
import io.github.lockmanager.store.support.ForwardingLockStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A deadlock look lists the whole store, which takes seconds on a large one; it must not hold up the renewals of the
 * node's requests and locks. A CI run on a store of 100,000 keys lost a fair waiter's request that way (its renewal
 * waited behind a listing on the keeper thread), and the wait went unseen by every node for a minute.
 */
class DeadlockLookApartTest {
    @Test
    void aSlowListingHoldsUpNoRenewalOfRequests() throws Exception {
        InMemoryLockStore inner = new InMemoryLockStore();
        ForwardingLockStore slowListing = new ForwardingLockStore(inner) {
            @Override
            public List<LockRecord> list() throws LockManagerException {
                try {
                    TimeUnit.SECONDS.sleep(6);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return super.list();
            }
        };
        Duration lease = Duration.ofSeconds(3);
        try (LockManager a = LockManagerBuilder.newBuilder().store(inner).nodeId("a").clientId("c").build();
             LockManager b = LockManagerBuilder.newBuilder().store(slowListing).nodeId("b").clientId("c").lease(lease)
                     .waitPollInterval(Duration.ofMillis(20)).build()) {
            CountDownLatch letGo = new CountDownLatch(1);
            CountDownLatch held = new CountDownLatch(1);
            Thread holder = new Thread(() -> {
                try (LockResource lock = a.lock("job")) {
                    held.countDown();
                    letGo.await();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }, "holder");
            holder.start();
            assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread waiter = new Thread(() -> {
                try (LockResource lock = b.waitForLock(LockSpec.of("job").fair(true), Duration.ofSeconds(60))) {
                    // served
                } catch (Throwable e) {
                    failure.set(e);
                }
            }, "waiter");
            waiter.start();
            LockKey line = LockKey.of(LockLevel.DC, "default", "c", "job").requests();
            await().atMost(10, TimeUnit.SECONDS).until(() -> !inner.inspect(line).isEmpty());
            // looks every 200 ms, each listing for 6 s; the request's lease is 3 s, renewed every second
            await().during(Duration.ofSeconds(8)).atMost(Duration.ofSeconds(12))
                    .until(() -> !inner.inspect(line).isEmpty());
            letGo.countDown();
            waiter.join(20_000);
            assertThat(failure.get()).isNull();
            assertThat(LockManagerBuilder.admin(b).getDeadlockLooks()).as("looks made").isPositive();
        }
    }
}
