package io.github.lockmanager.engine;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.LockKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** One heap of wake-up times with one timer for its head: each waiter woken once, in time order, never when cancelled. */
class WakeTimesTest {
    private final ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1);
    private final AtomicInteger armed = new AtomicInteger();
    private final WakeTimes times = new WakeTimes((work, delayNanos) -> {
        armed.incrementAndGet();
        return executor.schedule(work, delayNanos, TimeUnit.NANOSECONDS);
    });
    private final List<String> woken = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    private Waiter waiter(String name) {
        return new Waiter(LockKey.dc("farm", "client", name), LockMode.EXCLUSIVE, 0, null) {
            @Override
            void wake() {
                woken.add(name);
            }

            @Override
            boolean isDone() {
                return false;
            }
        };
    }

    @Test
    void wakesEachWaiterOnceInTheOrderOfItsTime() {
        times.wakeIn(waiter("late"), ms(300));
        times.wakeIn(waiter("first"), ms(50));
        times.wakeIn(waiter("middle"), ms(150));
        await().atMost(Duration.ofSeconds(10)).until(() -> woken.size() == 3);
        assertThat(woken).containsExactly("first", "middle", "late");
        assertThat(times.size()).isZero();
    }

    @Test
    void aCancelledWaiterIsNeverWokenAndAMovedOneOnceAtItsNewTime() throws Exception {
        Waiter cancelled = waiter("cancelled");
        Waiter moved = waiter("moved");
        times.wakeIn(cancelled, ms(50));
        times.wakeIn(moved, ms(50));
        times.wakeIn(moved, ms(200));
        times.cancel(cancelled);
        times.cancel(cancelled);
        times.wakeIn(waiter("marker"), ms(400));
        await().atMost(Duration.ofSeconds(10)).until(() -> woken.contains("marker"));
        assertThat(woken).containsExactly("moved", "marker");
        assertThat(times.size()).isZero();
    }

    @Test
    void anEarlierTimeThanTheArmedOneRearmsTheTimer() {
        times.wakeIn(waiter("in an hour"), TimeUnit.HOURS.toNanos(1));
        times.wakeIn(waiter("soon"), ms(20));
        await().atMost(Duration.ofSeconds(10)).until(() -> woken.contains("soon"));
        assertThat(woken).containsExactly("soon");
        assertThat(times.size()).isOne();
    }

    @Test
    void oneTimerServesManyWaitersSetInTimeOrder() {
        int n = 2_000;
        for (int i = 0; i < n; i++) {
            times.wakeIn(waiter("w" + i), ms(100) + i * 10_000L);
        }
        assertThat(armed).as("timers armed for %d waiters set in time order", n).hasValue(1);
        await().atMost(Duration.ofSeconds(30)).until(() -> woken.size() == n);
        assertThat(times.size()).isZero();
    }

    @Test
    void manyWaitersAtRandomTimesSomeCancelledAreEachWokenOnceOrNever() {
        int n = 5_000;
        Map<String, Boolean> cancelled = new ConcurrentHashMap<>();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        // all of them a second or more away, so that every cancellation comes before any wake-up
        for (int i = 0; i < n; i++) {
            Waiter w = waiter("w" + i);
            times.wakeIn(w, ms(1_000 + random.nextInt(300)));
            if (random.nextInt(4) == 0) {
                times.cancel(w);
                cancelled.put("w" + i, true);
            } else if (random.nextInt(4) == 0) {
                times.wakeIn(w, ms(1_000 + random.nextInt(300)));
            }
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> times.size() == 0 && woken.size() == n - cancelled.size());
        assertThat(woken).doesNotHaveDuplicates().noneMatch(cancelled::containsKey);
    }

    @Test
    void aStoppedTimerIsTheCallersToHandle() {
        executor.shutdownNow();
        WakeTimes stopped = new WakeTimes((work, delayNanos) -> {
            throw new IllegalStateException("closed");
        });
        Waiter w = waiter("w");
        assertThatThrownBy(() -> stopped.wakeIn(w, ms(10))).isInstanceOf(IllegalStateException.class);
        stopped.cancel(w);
        assertThat(stopped.size()).isZero();
    }

    private static long ms(long millis) {
        return TimeUnit.MILLISECONDS.toNanos(millis);
    }
}
