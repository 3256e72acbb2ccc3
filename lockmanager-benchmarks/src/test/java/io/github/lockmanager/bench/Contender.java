package io.github.lockmanager.bench;

import java.time.Duration;

/** One lock library on one node, as {@link PeerBench} drives it; lock and unlock of a key happen on one thread. */
interface Contender extends AutoCloseable {
    String name();

    /** Takes {@code key} if it is free, without waiting. */
    boolean tryLock(String key) throws Exception;

    void unlock(String key) throws Exception;

    /** Waits until {@code key} is taken, the way the library waits (polling every {@code interval} where it polls). */
    void lockWaiting(String key, Duration interval) throws Exception;

    /** Waits as a library without waits is made to: {@code tryLock} every {@code interval} until it succeeds. */
    static void pollFor(Contender contender, String key, Duration interval) throws Exception {
        while (!contender.tryLock(key)) {
            Thread.sleep(interval.toMillis());
        }
    }

    /** The poll interval every contender waits with, ours as its manager's wait poll interval. */
    Duration POLL = Duration.ofMillis(100);

    /** Round trips to the store so far, or -1 where they are not counted. */
    long roundTrips();
}
