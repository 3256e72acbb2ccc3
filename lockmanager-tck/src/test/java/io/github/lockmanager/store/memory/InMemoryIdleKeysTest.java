package io.github.lockmanager.store.memory;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRequest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keys whose last holder left: a few of the latest keep their place in the store's map for whoever takes them next,
 * the others leave it at once, and a key kept idle never leaves while it is held.
 */
class InMemoryIdleKeysTest {
    private static final Duration LEASE = Duration.ofMinutes(1);

    private final InMemoryLockStore store = new InMemoryLockStore();
    private final AtomicLong serial = new AtomicLong();

    private LockHandle handle(String key) {
        return LockHandle.of(LockKey.dc("farm", "client", key), "owner:", serial.incrementAndGet());
    }

    private AcquireResult acquire(LockHandle handle) {
        return acquire(handle, LockMode.EXCLUSIVE);
    }

    private AcquireResult acquire(LockHandle handle, LockMode mode) {
        return store.acquire(LockRequest.of(handle, "node", "thread", mode), LEASE);
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

    /**
     * A key taken again and again writes its place among the recently idle once: when each release took a place of
     * its own, a hot key pushed every other idle key out of the map, to be inserted again by its next taker.
     */
    @Test
    void aHotKeyDoesNotPushOtherIdleKeysOut() {
        int others = 100;
        for (int i = 0; i < others; i++) {
            takeAndRelease("order-" + i);
        }
        for (int i = 0; i < 10 * InMemoryLockStore.KEPT_IDLE; i++) {
            takeAndRelease("hot");
        }

        // keys whose places coincide push each other out: a few of the hundred may be gone
        assertThat(store.purgeIdleRecords()).isGreaterThan(others * 9 / 10);
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

    /**
     * Readers of one key, enough to race for it (so that its shared holders move to stripes), while another thread
     * purges idle keys all the time: a key is never taken out of the map from under a holder, so each holder's record
     * is there until its own release.
     */
    @Test
    void purgesNeverTakeOutAKeyFromUnderItsSharedHolders() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(5);
        AtomicInteger readersLeft = new AtomicInteger(4);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            done.add(pool.submit(() -> {
                try {
                    for (int i = 0; i < 30_000; i++) {
                        LockHandle handle = handle("report");
                        assertThat(acquire(handle, LockMode.SHARED).isAcquired()).as("reader %s", handle).isTrue();
                        assertThat(store.check(List.of(handle))).as("reader %s held", handle)
                                .containsEntry(handle, HoldState.HELD);
                        assertThat(store.release(handle)).as("reader %s released", handle).isTrue();
                    }
                } finally {
                    readersLeft.decrementAndGet();
                }
                return null;
            }));
        }
        done.add(pool.submit(() -> {
            while (readersLeft.get() > 0) {
                store.purgeIdleRecords();
            }
            return null;
        }));
        finishWithNoHolderLeft(pool, done);
    }

    /**
     * Threads take a few hot keys shared and exclusively while others churn through cold keys, so that the hot keys
     * go idle, are taken again, and have their idle states pushed out meanwhile: conflicting holders must never
     * overlap, and each grant's token must be above every earlier conflicting grant's.
     */
    @Test
    void hotKeysStayExclusiveAndTheirTokensRiseWhileIdleKeysArePushedOut() throws Exception {
        String[] hot = {"hot-0", "hot-1", "hot-2"};
        AtomicInteger[] writers = new AtomicInteger[hot.length];
        AtomicInteger[] readers = new AtomicInteger[hot.length];
        AtomicLong[] highestToken = new AtomicLong[hot.length];
        AtomicLong[] highestWriterToken = new AtomicLong[hot.length];
        for (int k = 0; k < hot.length; k++) {
            writers[k] = new AtomicInteger();
            readers[k] = new AtomicInteger();
            highestToken[k] = new AtomicLong();
            highestWriterToken[k] = new AtomicLong();
        }
        ExecutorService pool = Executors.newFixedThreadPool(6);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            boolean churner = t >= 4;
            String cold = "cold-" + t + "-";
            done.add(pool.submit(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int i = 0; i < 50_000; i++) {
                    if (churner) {
                        takeAndRelease(cold + random.nextInt(2 * InMemoryLockStore.KEPT_IDLE));
                        continue;
                    }
                    int k = random.nextInt(hot.length);
                    boolean exclusive = random.nextBoolean();
                    LockHandle handle = handle(hot[k]);
                    AcquireResult result = acquire(handle, exclusive ? LockMode.EXCLUSIVE : LockMode.SHARED);
                    if (!result.isAcquired()) {
                        continue;
                    }
                    long token = result.record().fencingToken();
                    if (exclusive) {
                        assertThat(writers[k].incrementAndGet()).as("writers of %s", hot[k]).isOne();
                        assertThat(readers[k].get()).as("readers of %s beside a writer", hot[k]).isZero();
                        assertThat(token).as("writer's token on %s", hot[k]).isGreaterThan(highestToken[k].get());
                        highestWriterToken[k].accumulateAndGet(token, Math::max);
                    } else {
                        readers[k].incrementAndGet();
                        assertThat(writers[k].get()).as("writers of %s beside a reader", hot[k]).isZero();
                        assertThat(token).as("reader's token on %s", hot[k])
                                .isGreaterThan(highestWriterToken[k].get());
                    }
                    highestToken[k].accumulateAndGet(token, Math::max);
                    (exclusive ? writers[k] : readers[k]).decrementAndGet();
                    assertThat(store.release(handle)).as("released %s", hot[k]).isTrue();
                }
                return null;
            }));
        }
        finishWithNoHolderLeft(pool, done);
    }

    /** Waits for every thread of {@code pool} in {@code done} (failing with the first that failed), then for none left. */
    private void finishWithNoHolderLeft(ExecutorService pool, List<Future<?>> done) throws Exception {
        try {
            for (Future<?> thread : done) {
                thread.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(store.list()).isEmpty();
    }
}
