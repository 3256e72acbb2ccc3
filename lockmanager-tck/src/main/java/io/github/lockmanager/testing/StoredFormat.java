package io.github.lockmanager.testing;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checks of a store's pinned-format test, once its test has written records as an earlier release of the store
 * wrote them (field by field, byte by byte): the store reads them as that release meant them, its own decisions
 * respect them, and it renews, releases and counts on from them. Each store's format test writes its own records
 * and calls these; see docs/writing-a-store.md.
 */
public final class StoredFormat {
    private static final Duration LEASE = Duration.ofMinutes(1);

    private StoredFormat() {
    }

    /**
     * The stored exclusive holder {@code owner} of {@code key} is read with its node, thread, lock time and token; a
     * reader is refused while it holds the key; it renews and releases as the store's own holder would; the next
     * grant's token is above {@code counter}, the key's stored fencing counter.
     */
    public static void readsExclusive(LockStore store, LockKey key, String owner, String node, String thread,
                                      long lockTimeMillis, long token, long counter) throws LockManagerException {
        LockRecord held = store.inspect(key).get(0);
        assertThat(held.ownerToken()).isEqualTo(owner);
        assertThat(held.mode()).isEqualTo(LockMode.EXCLUSIVE);
        assertThat(held.nodeId()).isEqualTo(node);
        assertThat(held.threadName()).isEqualTo(thread);
        assertThat(held.lockTime()).isEqualTo(Instant.ofEpochMilli(lockTimeMillis));
        assertThat(held.fencingToken()).isEqualTo(token);

        LockHandle reader = new LockHandle(key, "format-reader");
        assertThat(store.acquire(LockRequest.of(reader, "n", "t", LockMode.SHARED), LEASE).isAcquired())
                .as("a reader while the stored writer holds the key").isFalse();
        LockHandle writer = new LockHandle(key, owner);
        assertThat(store.renew(List.of(writer), LEASE)).containsEntry(writer, HoldState.HELD);
        assertThat(store.release(writer)).isTrue();
        AcquireResult next = store.acquire(LockRequest.of(reader, "n", "t", LockMode.SHARED), LEASE);
        assertThat(next.isAcquired()).isTrue();
        assertThat(next.record().fencingToken()).as("the stored counter goes on").isGreaterThan(counter);
        assertThat(store.release(reader)).isTrue();
    }

    /**
     * The stored permit holder {@code owner} of {@code pool}, one of {@code permits}, is read with its number and
     * thread; a holder asking for as many permits joins it and one asking for another number is refused.
     *
     * @return the handle of the holder that joined, for the caller to release
     */
    public static LockHandle readsPermit(LockStore store, LockKey pool, String owner, int permits, String thread)
            throws LockManagerException {
        LockRecord held = store.inspect(pool).get(0);
        assertThat(held.ownerToken()).isEqualTo(owner);
        assertThat(held.mode()).isEqualTo(LockMode.PERMIT);
        assertThat(held.permits()).isEqualTo(permits);
        assertThat(held.threadName()).isEqualTo(thread);
        LockHandle joined = new LockHandle(pool, "format-permit");
        assertThat(store.acquire(LockRequest.permit(joined, "n", "t", permits), LEASE).isAcquired()).isTrue();
        assertThat(store.acquire(LockRequest.permit(new LockHandle(pool, "format-other"), "n", "t", permits + 1),
                LEASE).isAcquired()).as("a permit of another number").isFalse();
        return joined;
    }
}
