package io.github.lockmanager.engine;

import io.github.lockmanager.GuardedHold;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.store.memory.InMemoryLockStore;
import io.github.lockmanager.testing.support.ManualTimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Held-too-long detection on a manual clock: one warning with the stack where the lock was taken once a hold
 * outlives the threshold, one info line when it ends, the flag in the admin view. The log is read from standard
 * error, where the tests' slf4j-simple writes it, looked up at each line.
 */
class HeldTooLongTest {
    private static final Duration THRESHOLD = Duration.ofSeconds(10);

    private final ManualTimeSource time = new ManualTimeSource();
    private StderrLog log;
    private LockManager manager;

    @BeforeEach
    void captureLog() {
        log = new StderrLog();
    }

    @AfterEach
    void restore() {
        if (manager != null) {
            manager.close();
        }
        log.close();
    }

    private LockManager manager(LockManagerBuilder builder) throws Exception {
        manager = builder.store(new InMemoryLockStore(time)).timeSource(time).nodeId("node-h")
                .lease(Duration.ofSeconds(60)).abortPollInterval(Duration.ofMillis(20)).build();
        return manager;
    }

    private int count(String regex) {
        Matcher m = Pattern.compile(regex).matcher(log.text());
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    @Test
    void aHoldOutlivingTheThresholdIsReportedOnceWithWhereItWasTakenAndAgainWhenItEnds() throws Exception {
        LockManager locks = manager(LockManagerBuilder.newBuilder().heldTooLongThreshold(THRESHOLD));
        LockManagerMXBean admin = LockManagerBuilder.admin(locks);
        LockResource held = locks.lock("nightly-report");
        time.advance(THRESHOLD.minusSeconds(1));
        assertThat(admin.getHeldLocks()).singleElement().satisfies(row -> assertThat(row.isHeldTooLong()).isFalse());

        time.advance(Duration.ofSeconds(2));
        await().atMost(Duration.ofSeconds(10)).until(() -> count("'nightly-report'.*has been held for") == 1);
        String text = log.text();
        assertThat(text).contains("node-h").contains("threshold of 10000 ms").contains("was taken here")
                .contains(getClass().getName() + ".aHoldOutlivingTheThreshold");
        assertThat(admin.getHeldLocks()).singleElement().satisfies(row -> assertThat(row.isHeldTooLong()).isTrue());

        time.advance(Duration.ofSeconds(30));
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
                .until(() -> count("'nightly-report'.*has been held for") == 1);
        held.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> count("'nightly-report'.*has ended after about") == 1);
    }

    @Test
    void aHoldKeptByFailedGuardedWorkIsStillWatched() throws Exception {
        LockManager locks = manager(LockManagerBuilder.newBuilder().heldTooLongThreshold(THRESHOLD));
        LockResource held = locks.lock("guarded-report");
        try (GuardedHold guard = held.guard()) {
            assertThatThrownBy(() -> guard.release((handle, last) -> {
                // keeper ticks pass while the work gives back its last hold; it then fails and keeps the hold
                await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5))
                        .until(() -> count("guarded-report") == 0);
                throw new IllegalStateException("work failed");
            }, true)).hasMessage("work failed");
        }
        assertThat(held.isClosed()).isFalse();
        time.advance(THRESHOLD.plusSeconds(1));
        await().atMost(Duration.ofSeconds(10)).until(() -> count("'guarded-report'.*has been held for") == 1);
        held.close();
    }

    @Test
    void withoutAThresholdNothingIsWatched() throws Exception {
        LockManager locks = manager(LockManagerBuilder.newBuilder());
        try (LockResource held = locks.lock("long-job")) {
            // well past any threshold, still inside the lease
            time.advance(Duration.ofSeconds(30));
            assertThat(LockManagerBuilder.admin(locks).getHeldLocks()).singleElement()
                    .satisfies(row -> assertThat(row.isHeldTooLong()).isFalse());
            assertThat(held.isLost()).isFalse();
        }
        // a tick or two of the keeper, which would have reported it
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> count("long-job") == 0);
    }

    @Test
    void theThresholdIsValidatedNamingTheSetting() {
        assertThatThrownBy(() -> LockManagerBuilder.newBuilder().heldTooLongThreshold(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("heldTooLongThreshold");
        assertThatThrownBy(() -> LockManagerBuilder.newBuilder().heldTooLongThreshold(Duration.ofDays(2)))
                .hasMessageContaining("heldTooLongThreshold");
        assertThatThrownBy(() -> LockManagerBuilder.newBuilder().heldTooLongThreshold(null))
                .hasMessageContaining("heldTooLongThreshold");
    }
}
