package io.github.lockmanager.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One hot key taken in turn by 2 threads of node a and 2 of node b, each asking again the moment it lets go, for a
 * given time: the load of figures 9 and 17. Threads 0 and 1 are node a's, 2 and 3 node b's.
 */
final class HotKey {
    /** What a thread does while it holds the key, told when it asked for it ({@link System#nanoTime()}). */
    @FunctionalInterface
    interface Holding {
        void held(int thread, long askedNanos) throws Exception;
    }

    private HotKey() {
    }

    /**
     * Runs the load on {@code key} for {@code time}; a grant that comes after the time is up is given back unused.
     *
     * @return how long it ran, in nanoseconds, until the threads were told to stop
     */
    static long run(Contender a, Contender b, String key, Duration time, String threadName, Holding holding)
            throws Exception {
        Contender[] nodes = {a, a, b, b};
        AtomicBoolean stop = new AtomicBoolean();
        List<Exception> failure = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < nodes.length; t++) {
            int me = t;
            threads.add(new Thread(() -> {
                try {
                    while (!stop.get()) {
                        long asked = System.nanoTime();
                        nodes[me].lockWaiting(key, Contender.POLL);
                        try {
                            if (!stop.get()) {
                                holding.held(me, asked);
                            }
                        } finally {
                            nodes[me].unlock(key);
                        }
                    }
                } catch (Exception e) {
                    failure.add(e);
                }
            }, threadName + "-" + t));
        }
        long start = System.nanoTime();
        threads.forEach(Thread::start);
        Thread.sleep(time.toMillis());
        stop.set(true);
        long took = System.nanoTime() - start;
        for (Thread thread : threads) {
            thread.join(120_000);
        }
        if (!failure.isEmpty()) {
            throw failure.get(0);
        }
        return took;
    }
}
