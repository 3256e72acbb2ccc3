package io.github.lockmanager.admin;

import io.github.lockmanager.TimeSource;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Slows down password guessing at the sign-in of {@link LockAdminServer}: after {@link #FREE_FAILURES} failed
 * sign-ins from one address, that address may try again only after a wait that doubles with each further failure,
 * from one second up to {@link #LONGEST_WAIT}; its answer while it waits is a refusal that checks no password. A
 * success clears the address. Addresses not heard of for the longest wait are forgotten, so the map holds only
 * recent guessers. Thread-safe.
 */
final class SignInThrottle {
    static final int FREE_FAILURES = 5;
    static final Duration LONGEST_WAIT = Duration.ofMinutes(5);
    private static final int MAX_ADDRESSES = 10_000;

    private final TimeSource time;
    private final Map<String, Failures> byAddress = new ConcurrentHashMap<>();

    /** Failures in a row from one address, and until when it must wait (engine time). */
    private record Failures(int count, long waitUntilNanos, long lastNanos) {
    }

    SignInThrottle(TimeSource time) {
        this.time = time;
    }

    /** How long {@code address} must still wait before its next try may be checked; zero if it may try now. */
    Duration waitFor(String address) {
        Failures failures = byAddress.get(address);
        long left = failures == null ? 0 : failures.waitUntilNanos() - time.nanoTime();
        return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    /** A sign-in from {@code address} failed; answers how long it must now wait. */
    Duration failed(String address) {
        long now = time.nanoTime();
        if (byAddress.size() >= MAX_ADDRESSES) {
            byAddress.values().removeIf(f -> now - f.lastNanos() > LONGEST_WAIT.toNanos());
        }
        Failures next = byAddress.merge(address, new Failures(1, now, now), (old, one) -> {
            int count = old.count() + 1;
            int over = count - FREE_FAILURES;
            long wait = over <= 0 ? 0 : Math.min(LONGEST_WAIT.toNanos(),
                    Duration.ofSeconds(1).toNanos() << Math.min(over - 1, 20));
            return new Failures(count, now + wait, now);
        });
        return Duration.ofNanos(Math.max(0, next.waitUntilNanos() - now));
    }

    /** A sign-in from {@code address} succeeded: its failures are forgotten. */
    void succeeded(String address) {
        byAddress.remove(address);
    }
}
