package io.github.lockmanager.store.support;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.store.support.RetryPolicy.Failure;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryPolicyTest {
    private final RetryPolicy three = new RetryPolicy(3, Duration.ZERO, Duration.ZERO);

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void brokenConnectionsAreRetriedAtOnceWithoutUsingUpAttempts() throws Exception {
        AtomicInteger tries = new AtomicInteger();
        String answer = three.call("call", Duration.ofSeconds(5), e -> Failure.BROKEN_CONNECTION, remaining -> {
            if (tries.incrementAndGet() <= 10) {
                throw new IOException("dead pooled connection " + tries.get());
            }
            return "done";
        });
        assertThat(answer).isEqualTo("done");
        assertThat(tries).hasValue(11);
    }

    @Test
    void aPermanentFailureKeepsItsOwnCodeAndOneCodeInItsMessage() {
        RetryPolicy.Classifier internal = new RetryPolicy.Classifier() {
            @Override
            public Failure classify(Exception failure) {
                return Failure.PERMANENT;
            }

            @Override
            public ErrorCode permanentCode(Exception failure) {
                return ErrorCode.INTERNAL_ERROR;
            }
        };
        assertThatThrownBy(() -> three.call("acquire lock 'k'", Duration.ofSeconds(5), internal, remaining -> {
            throw new IOException("syntax error");
        })).isInstanceOfSatisfying(LockManagerException.class, e -> {
            assertThat(e.getErrorCode()).isEqualTo(ErrorCode.INTERNAL_ERROR);
            assertThat(e.getMessage()).startsWith("[INTERNAL_ERROR] acquire lock 'k' failed")
                    .doesNotContain("CONNECTION_ERROR");
        });
    }

    @Test
    void transientFailuresEndAsRetriesExhaustedAfterTheAttempts() {
        AtomicInteger tries = new AtomicInteger();
        assertThatThrownBy(() -> three.call("renew", Duration.ofSeconds(5), e -> Failure.TRANSIENT, remaining -> {
            tries.incrementAndGet();
            throw new IOException("deadlock");
        })).isInstanceOfSatisfying(LockManagerException.class, e ->
                assertThat(e.getErrorCode()).isEqualTo(ErrorCode.RETRIES_EXHAUSTED));
        assertThat(tries).hasValue(3);
    }

    @Test
    void noAttemptStartsAfterTheBudgetAndEachIsToldWhatIsLeft() {
        RetryPolicy many = new RetryPolicy(1_000, Duration.ofMillis(20), Duration.ofMillis(20));
        List<Long> remainders = new ArrayList<>();
        assertThatThrownBy(() -> many.call("read", Duration.ofMillis(300), e -> Failure.TRANSIENT, remaining -> {
            remainders.add(remaining);
            throw new IOException("timeout");
        })).isInstanceOfSatisfying(LockManagerException.class, e -> {
            assertThat(e.getErrorCode()).isEqualTo(ErrorCode.RETRIES_EXHAUSTED);
            assertThat(e).hasMessageContaining("operation timeout of 300 ms");
        });
        assertThat(remainders).hasSizeLessThan(1_000).first().satisfies(r -> assertThat(r).isLessThanOrEqualTo(300));
        assertThat(remainders).isSortedAccordingTo((a, b) -> Long.compare(b, a));
    }

    @Test
    void eachAttemptOfACallWithoutOneBudgetGetsItsOwnTimeAndEveryAttemptIsMade() throws Exception {
        RetryPolicy four = new RetryPolicy(4, Duration.ofMillis(1), Duration.ofMillis(1));
        List<Long> given = new ArrayList<>();
        // a first connection that runs past its time once (a cold client), then succeeds
        String answer = four.callEachWithin("connect", Duration.ofMillis(200), e -> Failure.TRANSIENT, timeout -> {
            given.add(timeout);
            if (given.size() == 1) {
                Thread.sleep(timeout);
                throw new java.util.concurrent.TimeoutException("no connection within " + timeout + " ms");
            }
            return "connected";
        });
        assertThat(answer).isEqualTo("connected");
        assertThat(given).hasSize(2).allSatisfy(t -> assertThat(t).isBetween(1L, 200L)).first().isEqualTo(200L);
        AtomicInteger tries = new AtomicInteger();
        assertThatThrownBy(() -> four.callEachWithin("connect", Duration.ofMillis(50), e -> Failure.TRANSIENT, t -> {
            tries.incrementAndGet();
            Thread.sleep(t);
            throw new java.util.concurrent.TimeoutException("no connection within " + t + " ms");
        })).isInstanceOfSatisfying(LockManagerException.class, e -> {
            assertThat(e.getErrorCode()).isEqualTo(ErrorCode.RETRIES_EXHAUSTED);
            assertThat(e).hasMessageContaining("connect");
        });
        assertThat(tries).as("every attempt made, each with its own time").hasValue(4);
    }

    @Test
    void anInterruptDeepInTheCauseChainEndsTheCallWithTheFlagSet() {
        AtomicInteger tries = new AtomicInteger();
        assertThatThrownBy(() -> three.call("acquire", Duration.ofSeconds(5), e -> Failure.TRANSIENT, remaining -> {
            tries.incrementAndGet();
            // as a client library wraps it, having cleared the thread's flag
            throw new IOException("call failed", new RuntimeException(new InterruptedIOException("interrupted")));
        })).isInstanceOfSatisfying(LockManagerException.class, e -> assertThat(e).hasMessageContaining("interrupted"));
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
        assertThat(tries).as("not retried").hasValue(1);
    }

    @Test
    void aSocketTimeoutIsNoInterrupt() {
        assertThat(RetryPolicy.isInterruption(new IOException(new SocketTimeoutException("read timed out")))).isFalse();
    }

    @Test
    void aCallersDeadlineCutsTheBudgetUntilItIsCleared() throws Exception {
        RetryPolicy retries = new RetryPolicy(3, Duration.ofMillis(1), Duration.ofMillis(5));
        List<Long> given = new ArrayList<>();
        RetryPolicy.Attempt<String> timesOut = remaining -> {
            given.add(remaining);
            Thread.sleep(remaining);
            throw new SocketTimeoutException("no answer in " + remaining + " ms");
        };
        CallDeadline.set(System.nanoTime() + Duration.ofMillis(100).toNanos());
        try {
            long start = System.nanoTime();
            assertThatThrownBy(() -> retries.call("acquire", Duration.ofSeconds(30), e -> Failure.TRANSIENT, timesOut))
                    .isInstanceOf(LockManagerException.class).hasMessageContaining("the time its caller had left");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
            assertThat(given.get(0)).as("the first attempt's time, cut to the deadline").isLessThanOrEqualTo(100);
        } finally {
            CallDeadline.clear();
        }
        assertThat(CallDeadline.remainingNanos(Duration.ofSeconds(30).toNanos()))
                .as("cleared: the whole budget again").isEqualTo(Duration.ofSeconds(30).toNanos());
        long whole = retries.call("read", Duration.ofSeconds(30), e -> Failure.TRANSIENT, remaining -> remaining);
        assertThat(whole).as("an attempt's time without a deadline").isGreaterThan(20_000L);
    }
}
