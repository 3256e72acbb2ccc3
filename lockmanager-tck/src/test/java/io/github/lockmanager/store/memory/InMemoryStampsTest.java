package io.github.lockmanager.store.memory;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.testing.support.ManualTimeSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wall-clock times of the in-memory store's records, which it stamps from its lease clock: the clock's own time
 * to the millisecond (also for records stamped in the same millisecond), and a lock time and its expiry exactly a lease
 * apart, before and after a renewal.
 */
class InMemoryStampsTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    /** Between two milliseconds: the tests cross a millisecond from there, so a stamp that drops the part of a
     * millisecond the clock was in when the store was made, or rounds the wrong way, shows. */
    private final ManualTimeSource time = new ManualTimeSource(Instant.parse("2030-05-06T07:08:09.123456789Z"));
    private final LockHandle handle = LockHandle.of(LockKey.dc("farm", "client", "job"), "owner:", 1);

    @Test
    void aGrantIsStampedWithTheClocksTimeAndEndsOneLeaseLater() {
        time.advance(Duration.ofNanos(500_000));
        InMemoryLockStore store = new InMemoryLockStore(time);
        time.advance(Duration.ofNanos(100_000));

        LockRecord granted = store.acquire(LockRequest.of(handle, "node", "thread", LockMode.EXCLUSIVE), LEASE).record();

        Instant now = time.now().truncatedTo(ChronoUnit.MILLIS);
        assertThat(granted.lockTime()).isEqualTo(now);
        assertThat(granted.expirationTime()).isEqualTo(now.plus(LEASE));
        assertThat(store.read(handle.key())).contains(granted);
    }

    @Test
    void recordsStampedInOneMillisecondAndInTheNextEachShowTheirOwnTimes() {
        InMemoryLockStore store = new InMemoryLockStore(time);
        Instant first = time.now().truncatedTo(ChronoUnit.MILLIS);
        LockRecord a = store.acquire(request("a"), LEASE).record();
        time.advance(Duration.ofNanos(300_000));
        LockRecord b = store.acquire(request("b"), LEASE).record();
        time.advance(Duration.ofNanos(300_000));
        LockRecord c = store.acquire(request("c"), LEASE).record();

        assertThat(List.of(a.lockTime(), b.lockTime(), c.lockTime()))
                .containsExactly(first, first, first.plusMillis(1));
        assertThat(c.expirationTime()).isEqualTo(first.plusMillis(1).plus(LEASE));
        assertThat(store.read(a.key()).orElseThrow().lockTime()).as("read after a later stamp").isEqualTo(first);
        assertThat(store.read(b.key()).orElseThrow().expirationTime()).isEqualTo(first.plus(LEASE));
    }

    private static LockRequest request(String key) {
        return LockRequest.of(LockHandle.of(LockKey.dc("farm", "client", key), "owner:", 1), "node", "thread", LockMode.EXCLUSIVE);
    }

    @Test
    void aRenewalMovesTheExpiryToOneLeaseFromTheRenewalAndKeepsTheLockTime() {
        InMemoryLockStore store = new InMemoryLockStore(time);
        Instant lockTime = store.acquire(LockRequest.of(handle, "node", "thread", LockMode.EXCLUSIVE), LEASE).record().lockTime();
        time.advance(Duration.ofMillis(12_345).plusNanos(400_000));

        store.renew(List.of(handle), LEASE);

        LockRecord renewed = store.read(handle.key()).orElseThrow();
        assertThat(renewed.lockTime()).isEqualTo(lockTime);
        assertThat(renewed.expirationTime()).isEqualTo(time.now().truncatedTo(ChronoUnit.MILLIS).plus(LEASE));
    }
}
