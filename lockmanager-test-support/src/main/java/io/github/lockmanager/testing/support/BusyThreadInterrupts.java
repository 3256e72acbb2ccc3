package io.github.lockmanager.testing.support;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockStore;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Interrupts sent to a thread that takes and releases a new key of a store again and again, as code other than the
 * lock manager would send them: each must reach the thread, as a call that ends with the flag set or as the flag
 * still set after a call. Some store clients clear the flag on paths of their own (HBase's {@code Table} did, in its
 * region lookups), and nothing outside the store can tell.
 */
public final class BusyThreadInterrupts {
    private static final Duration LEASE = Duration.ofSeconds(30);

    private BusyThreadInterrupts() {
    }

    /** Sends {@code interrupts} interrupts, one at a time, each once the thread is past another call. */
    public static void eachReachesTheThread(LockStore store, String client, int interrupts) throws Exception {
        AtomicInteger calls = new AtomicInteger();
        AtomicInteger seen = new AtomicInteger();
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread busy = new Thread(() -> {
            while (!done.get()) {
                try {
                    AcquireResult taken = store.acquire(Requests.request(Requests.uniqueKey(client, "interrupted"),
                            "busy"), LEASE);
                    if (taken.isAcquired()) {
                        store.release(taken.record().handle());
                    }
                } catch (LockManagerException e) {
                    // an interrupted call: the flag tells
                }
                calls.incrementAndGet();
                if (Thread.interrupted()) {
                    seen.incrementAndGet();
                }
            }
        }, "tck-busy-with-the-store");
        // a store that fails otherwise stops the thread: say how, rather than time out waiting for its next call
        busy.setUncaughtExceptionHandler((thread, e) -> failed.set(e));
        busy.start();
        try {
            for (int sent = 1; sent <= interrupts; sent++) {
                int from = calls.get();
                await().atMost(Duration.ofSeconds(30)).until(() -> calls.get() > from || failed.get() != null);
                assertThat(failed.get()).as("how the thread busy with %s failed", store).isNull();
                busy.interrupt();
                int expected = sent;
                await("interrupt " + sent + " of " + interrupts + " seen by the thread busy with " + store)
                        .atMost(Duration.ofSeconds(30)).until(() -> seen.get() == expected);
            }
        } finally {
            done.set(true);
            busy.join(Duration.ofSeconds(30).toMillis());
        }
        assertThat(seen).hasValue(interrupts);
    }
}
