package io.github.lockmanager.engine;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The manager's task threads ({@code lockmanager-<node>-tasks}): where the tries of task waits run, their timers fire
 * and task locks are released asynchronously. Made at the first use, so that a manager without task locks has none,
 * and stopped on close.
 */
final class TaskThreads {
    private static final Logger log = LoggerFactory.getLogger(TaskThreads.class);
    private static final int THREADS = 2;

    private final String nodeId;
    private final Lifecycle lifecycle;
    private final NamedThreadFactory threads;
    private ScheduledThreadPoolExecutor executor;
    private boolean stopped;

    TaskThreads(EngineSettings settings, Lifecycle lifecycle) {
        this.nodeId = settings.nodeId();
        this.lifecycle = lifecycle;
        this.threads = new NamedThreadFactory("lockmanager-" + nodeId + "-tasks");
    }

    /** Runs {@code work} on a task thread, or here if the manager has stopped them. */
    void run(Runnable work) {
        try {
            executor().execute(work);
        } catch (RejectedExecutionException | IllegalStateException stopped) {
            work.run();
        }
    }

    /**
     * Runs {@code work} on a task thread soon.
     *
     * @throws IllegalStateException if the manager has stopped them
     */
    void execute(Runnable work) {
        try {
            executor().execute(work);
        } catch (RejectedExecutionException stopped) {
            throw lifecycle.closedException();
        }
    }

    /**
     * Runs {@code work} on a task thread after {@code delayNanos}.
     *
     * @throws IllegalStateException if the manager has stopped them
     */
    ScheduledFuture<?> schedule(Runnable work, long delayNanos) {
        try {
            return executor().schedule(work, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException stopped) {
            throw lifecycle.closedException();
        }
    }

    private synchronized ScheduledThreadPoolExecutor executor() {
        if (stopped) {
            throw lifecycle.closedException();
        }
        if (executor == null) {
            executor = new ScheduledThreadPoolExecutor(THREADS, threads);
            executor.setRemoveOnCancelPolicy(true);
        }
        return executor;
    }

    /** Stops the threads, waiting a bounded time for a try in a store call to end. */
    void stop() {
        ScheduledThreadPoolExecutor running;
        synchronized (this) {
            stopped = true;
            running = executor;
        }
        if (running != null) {
            running.shutdownNow();
            try {
                if (!threads.awaitExit(5, TimeUnit.SECONDS)) {
                    log.warn("Task threads of node '{}' did not stop within 5 s: a store call is hanging", nodeId);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
