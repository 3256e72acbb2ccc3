package io.github.lockmanager.store.memory;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRequest;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keys whose last holder left: a few of the latest keep their place in the store's map for whoever takes them next,
 * the others leave it at once, and a key kept idle never leaves while it is held.
 */
class InMemoryIdleKeysTest {
    private static final Duration LEASE = Duration.ofMinutes(1);

    private final InMemoryLockStore store = new InMemoryLockStore();
    private long serial;

    private LockHandle handle(String key) {
        return LockHandle.of(LockKey.dc("farm", "client", key), "owner:", ++serial);
    }

    private AcquireResult acquire(LockHandle handle) {
        return store.acquire(new LockRequest(handle, "node", "thread", LockMode.EXCLUSIVE), LEASE);
    }

    private void takeAndRelease(String key) {
        LockHandle handle = handle(key);
        assertThat(acquire(handle).isAcquired()).as("acquired %s", key).isTrue();
        assertThat(store.release(handle)).as("released %s", key).isTrue();
    }

    @Test
    void aReleasedKeyIsKeptUntilPurged() {
        takeAndRelease("job");

        assertThat(store.read(LockKey.dc("farm", "client", "job"))).isEmpty();
        assertThat(store.purgeIdleRecords()).isEqualTo(1);
        assertThat(store.purgeIdleRecords()).isZero();
    }

    @Test
    void noMoreIdleKeysAreKeptThanTheLimitHoweverManyWereLocked() {
        int keys = 20 * InMemoryLockStore.KEPT_IDLE;
        for (int i = 0; i < keys; i++) {
            takeAndRelease("order-" + i);
        }

        int kept = store.purgeIdleRecords();
        assertThat(kept).isPositive().isLessThanOrEqualTo(InMemoryLockStore.KEPT_IDLE);
        assertThat(store.purgeIdleRecords()).isZero();
    }

    @Test
    void aKeyTakenAgainStaysHeldWhenItsEarlierIdleStateIsPushedOut() {
        LockHandle first = handle("job");
        acquire(first);
        store.release(first);
        LockHandle second = handle("job");
        long secondToken = acquire(second).record().fencingToken();

        // enough idle keys to push out every one kept before, "job"'s earlier idle state among them
        for (int i = 0; i < 20 * InMemoryLockStore.KEPT_IDLE; i++) {
            takeAndRelease("order-" + i);
        }

        assertThat(store.read(LockKey.dc("farm", "client", "job")))
                .hasValueSatisfying(r -> assertThat(r.handle()).isEqualTo(second));
        AcquireResult third = acquire(handle("job"));
        assertThat(third.isAcquired()).isFalse();
        assertThat(third.record().fencingToken()).isEqualTo(secondToken);
        assertThat(store.release(second)).isTrue();
        assertThat(acquire(handle("job")).record().fencingToken()).isGreaterThan(secondToken);
    }
}
