package io.github.lockmanager.engine;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Daemon threads with a fixed name: an operator reading a thread dump sees which node's manager they serve,
 * and a forgotten manager does not keep the JVM alive (its locks then expire after one lease).
 */
final class NamedThreadFactory implements ThreadFactory {
    private final String name;
    private final List<Thread> threads = new CopyOnWriteArrayList<>();

    NamedThreadFactory(String name) {
        this.name = name;
    }

    @Override
    public Thread newThread(Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        threads.add(t);
        return t;
    }

    /**
     * Waits for every thread made here to exit: an executor reports termination before its worker has
     * finished exiting, and a closed manager must leave no thread behind.
     *
     * @return {@code true} if all have exited within the timeout
     */
    boolean awaitExit(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        for (Thread t : threads) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return !t.isAlive();
            }
            TimeUnit.NANOSECONDS.timedJoin(t, remaining);
        }
        return threads.stream().noneMatch(Thread::isAlive);
    }
}
