package io.github.lockmanager.engine;

import io.github.lockmanager.GuardedHold;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.store.memory.InMemoryLockStore;
import io.github.lockmanager.testing.support.InstrumentedStore;
import io.github.lockmanager.testing.support.ManualTimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A holder whose process was paused past its lease (a long collection, a stopped VM) while another node took the key,
 * on the manual clock: the pause is a step of the clock that no thread of the manager saw. The lease is long and
 * the abort poll slow, so the keeper and the watchdog do not run during a test; whatever the holder learns, it learns
 * when it asks or acts.
 */
class PausedHolderTest {
    private static final Duration LEASE = Duration.ofHours(20);
    private static final Duration PAUSE = LEASE.plusSeconds(1);

    private final ManualTimeSource time = new ManualTimeSource();
    private final InMemoryLockStore shared = new InMemoryLockStore(time);
    private final List<LockManager> managers = new ArrayList<>();
    private final BlockingQueue<LockLossReason> losses = new LinkedBlockingQueue<>();
    private final ExecutorService holder = Executors.newSingleThreadExecutor(r -> new Thread(r, "paused-holder"));

    @AfterEach
    void close() {
        holder.shutdownNow();
        managers.forEach(LockManager::close);
    }

    private LockManager node(String nodeId) throws LockManagerException {
        // not the in-memory store itself: the paused node must run as on a store across a network
        LockManager manager = LockManagerBuilder.newBuilder().store(new InstrumentedStore(shared)).nodeId(nodeId)
                .timeSource(time).lease(LEASE).abortPollInterval(Duration.ofHours(1))
                .lossListener((lock, thread, reason) -> losses.add(reason)).build();
        managers.add(manager);
        return manager;
    }

    /** {@code sleeper} holds {@code key}, is paused past its lease, and {@code other} takes the key meanwhile. */
    private LockResource pausedWhileTaken(LockManager sleeper, LockManager other, String key) throws Exception {
        LockResource held = holder.submit(() -> sleeper.lock(key)).get(10, TimeUnit.SECONDS);
        time.advance(PAUSE);
        assertThat(other.lock(key).isNewLock()).as("the key is free in the store once the lease has ended").isTrue();
        return held;
    }

    @Test
    void aHolderAskingOnWakingIsToldItsLockIsLost() throws Exception {
        LockResource held = pausedWhileTaken(node("sleeper"), node("other"), "job");

        assertThat(held.isLost()).as("isLost() on waking, before any keeper or watchdog ran").isTrue();
        assertThat(losses.poll(10, TimeUnit.SECONDS)).isEqualTo(LockLossReason.RENEWAL_UNCONFIRMED);
        assertThat(losses).as("told once").isEmpty();
    }

    @Test
    void theRemainingLeaseShrinksWithTheClockAndIsZeroOnWakingAndOnceClosed() throws Exception {
        LockManager sleeper = node("sleeper");
        LockResource held = holder.submit(() -> sleeper.lock("term")).get(10, TimeUnit.SECONDS);
        Duration fresh = held.remainingLease();
        assertThat(fresh).as("a fresh grant: its lease less the loss margin").isPositive().isLessThanOrEqualTo(LEASE);
        time.advance(Duration.ofHours(1));
        assertThat(held.remainingLease()).isEqualTo(fresh.minusHours(1));

        LockResource asleep = pausedWhileTaken(sleeper, node("other"), "job");

        assertThat(asleep.remainingLease()).as("past its lease on waking, before any keeper ran").isZero();
        assertThat(asleep.isLost()).isTrue();
        LockResource other = holder.submit(() -> sleeper.lock("closed")).get(10, TimeUnit.SECONDS);
        other.close();
        assertThat(other.remainingLease()).isZero();
    }

    @Test
    void guardedWorkIsRefusedOnWaking() throws Exception {
        LockResource held = pausedWhileTaken(node("sleeper"), node("other"), "job");

        assertThatThrownBy(held::guard).isInstanceOf(LockLostException.class).hasMessageContaining("lost");
        assertThat(losses.poll(10, TimeUnit.SECONDS)).isEqualTo(LockLossReason.RENEWAL_UNCONFIRMED);
    }

    @Test
    void aHoldClosedOnWakingIsToldAndTouchesNothingOfTheNewHolders() throws Exception {
        LockManager other = node("other");
        LockResource held = pausedWhileTaken(node("sleeper"), other, "job");

        holder.submit(held::close).get(10, TimeUnit.SECONDS);

        assertThat(losses.poll(10, TimeUnit.SECONDS)).isEqualTo(LockLossReason.RENEWAL_UNCONFIRMED);
        assertThat(held.isLost()).isTrue();
        assertThat(shared.read(LockKey.dc("default", "default", "job"))).get()
                .extracting(record -> record.nodeId()).isEqualTo("other");
    }

    @Test
    void aHoldWhoseLeaseEndedUnseenIsToldEvenWhenNoOneTookTheKey() throws Exception {
        LockResource held = holder.submit(() -> node("sleeper").lock("job")).get(10, TimeUnit.SECONDS);
        time.advance(PAUSE);

        holder.submit(held::close).get(10, TimeUnit.SECONDS);

        assertThat(losses.poll(10, TimeUnit.SECONDS)).as("its work ran past its lease").isEqualTo(
                LockLossReason.RENEWAL_UNCONFIRMED);
        assertThat(shared.read(LockKey.dc("default", "default", "job"))).as("its record released all the same").isEmpty();
    }

    @Test
    void aReleaseThatFindsTheRecordGoneReportsTheLoss() throws Exception {
        LockManager sleeper = node("sleeper");
        LockResource held = holder.submit(() -> sleeper.lock("job")).get(10, TimeUnit.SECONDS);
        // another node's operator force-releases it; the holder's node has not polled since
        assertThat(node("admin").forceRelease("job", LockLevel.DC, "ops")).isEqualTo(1);

        holder.submit(held::close).get(10, TimeUnit.SECONDS);

        assertThat(losses.poll(10, TimeUnit.SECONDS)).isEqualTo(LockLossReason.NOT_OWNED);
        assertThat(held.isLost()).isTrue();
    }

    @Test
    void aHolderWithinItsLeaseIsNotLost() throws Exception {
        LockResource held = holder.submit(() -> node("sleeper").lock("job")).get(10, TimeUnit.SECONDS);
        time.advance(LEASE.dividedBy(2));

        assertThat(held.isLost()).isFalse();
        try (GuardedHold ignored = held.guard()) {
            assertThat(held.isLost()).isFalse();
        }
        holder.submit(held::close).get(10, TimeUnit.SECONDS);
        assertThat(losses).isEmpty();
    }
}
