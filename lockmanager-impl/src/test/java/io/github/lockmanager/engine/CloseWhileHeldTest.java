package io.github.lockmanager.engine;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.store.memory.InMemoryLockStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a holder may still do while {@code close()} interrupts it and waits for it to unlock. */
class CloseWhileHeldTest {

    @Test
    void aHolderReentersItsLockWhileTheManagerClosesAndNothingIsTakenAfter() throws Exception {
        LockManager manager = LockManagerBuilder.newBuilder().store(new InMemoryLockStore()).nodeId("a")
                .shutdownTimeout(Duration.ofSeconds(30)).build();
        CountDownLatch held = new CountDownLatch(1);
        AtomicBoolean reentered = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread holder = new Thread(() -> {
            try (LockResource outer = manager.lock("job")) {
                held.countDown();
                try {
                    new CountDownLatch(1).await();
                } catch (InterruptedException closing) {
                    // work that unwinds after the interrupt may call code that takes the lock it already holds
                    try (LockResource inner = manager.lock("job");
                         LockResource withLease = manager.lock(LockSpec.of("job").at(LockLevel.DC).lease(Duration.ofSeconds(30)))) {
                        reentered.set(!inner.isNewLock() && !withLease.isNewLock());
                    }
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "close-while-held-holder");
        holder.start();
        assertThat(held.await(10, TimeUnit.SECONDS)).as("the holder took the lock").isTrue();

        manager.close();

        holder.join(10_000);
        assertThat(holder.isAlive()).as("the holder finished").isFalse();
        assertThat(failure.get()).as("the holder's re-entry and unlocks").isNull();
        assertThat(reentered).as("re-entered the held lock").isTrue();
        assertThatThrownBy(() -> manager.lock("job")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }
}
