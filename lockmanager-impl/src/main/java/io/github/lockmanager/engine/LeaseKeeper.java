package io.github.lockmanager.engine;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.TimeSource;
import io.github.lockmanager.spi.LockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.function.LongConsumer;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The background work of one lock manager, on two named daemon threads:
 * <ul>
 *   <li>the keeper ({@code lockmanager-<node>-keeper}) each tick releases the locks of dead holder threads and kept
 *       locks whose time has come (and, between ticks, records parked for a hand-off that no thread claimed),
 *       retries failed releases, runs the {@link Renewal} cycle, reports locks {@link HeldTooLong held too long}
 *       and, now and then, purges idle records;</li>
 *   <li>the watchdog ({@code lockmanager-<node>-watchdog}) runs the {@link Watchdog}, which does no I/O.</li>
 * </ul>
 * Both run as often as the shortest lease this manager has been asked for needs ({@link #adopt}).
 */
final class LeaseKeeper {
    private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

    private final String nodeId;
    private final LockStore store;
    private final TimeSource time;
    private final LeasePolicy leases;
    private final Duration purgeInterval;
    private final Duration shutdownTimeout;
    private final AcquisitionTable table;
    private final StoreCalls calls;
    private final Releaser releaser;
    private final Renewal renewal;
    private final Watchdog watchdog;
    private final HeldTooLong heldTooLong;
    private final NamedThreadFactory keeperThreads;
    private final NamedThreadFactory watchdogThreads;
    private final ScheduledExecutorService keeperThread;
    private final ScheduledExecutorService watchdogThread;
    /** Only touched by the keeper thread. */
    private long nextPurgeNanos;
    /** How often each thread runs now; changed under this object's monitor, read without it. */
    private volatile long tickNanos;
    private volatile long watchNanos;
    private ScheduledFuture<?> keeping;
    private ScheduledFuture<?> watching;

    /**
     * @param keeperThreads the factory of {@code keeperThread}, the keeper's executor, which the releaser shares for
     *                      its one-off releases
     */
    /** What else runs on each keeper cycle, after renewal: the fair waiters' requests and deadlock detection. */
    private final List<LongConsumer> duties;

    LeaseKeeper(EngineSettings settings, AcquisitionTable table, StoreCalls calls, Releaser releaser, Delivery delivery,
                HeldTooLong heldTooLong, Events events, NamedThreadFactory keeperThreads,
                ScheduledExecutorService keeperThread, List<LongConsumer> duties) {
        this.duties = List.copyOf(duties);
        this.nodeId = settings.nodeId();
        this.store = settings.store();
        this.time = settings.timeSource();
        this.leases = settings.leases();
        this.purgeInterval = settings.purgeInterval();
        this.shutdownTimeout = settings.shutdownTimeout();
        this.table = table;
        this.releaser = releaser;
        this.renewal = new Renewal(settings, table, calls, delivery, events);
        this.calls = calls;
        this.watchdog = new Watchdog(settings, table, delivery);
        this.heldTooLong = heldTooLong;
        this.keeperThreads = keeperThreads;
        this.watchdogThreads = new NamedThreadFactory("lockmanager-" + nodeId + "-watchdog");
        this.keeperThread = keeperThread;
        this.watchdogThread = Executors.newSingleThreadScheduledExecutor(watchdogThreads);
    }

    synchronized void start() {
        nextPurgeNanos = time.nanoTime() + purgeInterval.toNanos();
        schedule(leases.tickNanos(), leases.watchdogPeriodNanos());
    }

    /** Runs {@code duty} on the keeper thread every {@code period} as well, until the keeper stops. */
    synchronized void every(Duration period, String name, Runnable duty) {
        keeperThread.scheduleWithFixedDelay(() -> {
            try {
                duty.run();
            } catch (RuntimeException | Error e) {
                log.error("{} of node '{}' failed unexpectedly; it runs again in {}", name, nodeId, period, e);
            }
        }, period.toNanos(), period.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Makes both threads run often enough for locks with {@code policy}'s lease, if they do not yet: a lease shorter
     * than the manager's needs earlier renewals and an earlier look by the watchdog. The cadence only ever gets
     * faster, so a lock taken with a short lease is never left behind by one taken later with a longer one.
     */
    void adopt(LeasePolicy policy) {
        if (policy.tickNanos() >= tickNanos && policy.watchdogPeriodNanos() >= watchNanos) {
            return;
        }
        synchronized (this) {
            if (keeperThread.isShutdown()) {
                return;
            }
            keeping.cancel(false);
            watching.cancel(false);
            schedule(Math.min(tickNanos, policy.tickNanos()), Math.min(watchNanos, policy.watchdogPeriodNanos()));
        }
        log.debug("Keeper of node '{}' now runs every {} ms and its watchdog every {} ms, for locks with {}", nodeId,
                TimeUnit.NANOSECONDS.toMillis(tickNanos), TimeUnit.NANOSECONDS.toMillis(watchNanos), policy);
    }

    private void schedule(long tick, long watch) {
        tickNanos = tick;
        watchNanos = watch;
        keeping = keeperThread.scheduleWithFixedDelay(this::keep, tick, tick, TimeUnit.NANOSECONDS);
        watching = watchdogThread.scheduleWithFixedDelay(this::watch, watch, watch, TimeUnit.NANOSECONDS);
    }

    /** Stops both threads, then makes one last attempt at the releases still pending. */
    void stop() {
        synchronized (this) {
            keeperThread.shutdownNow();
            watchdogThread.shutdownNow();
        }
        boolean interrupted = false;
        try {
            if (!keeperThreads.awaitExit(shutdownTimeout.toMillis() + 1000, TimeUnit.MILLISECONDS)) {
                log.warn("Keeper thread of node '{}' did not stop in time: a store call is hanging", nodeId);
            }
            watchdogThreads.awaitExit(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            interrupted = true;
        }
        releaser.retryPendingOnClose(time.nanoTime());
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void keep() {
        try {
            long now = time.nanoTime();
            for (Acquisition acquisition : table.held()) {
                if (!acquisition.isHolderAlive()) {
                    releaser.reclaim(acquisition);
                }
            }
            releaser.releaseKept(now);
            releaser.forgetEndedHandOffs();
            releaser.retryPending(now);
            renewal.cycle(now, tickNanos);
            heldTooLong.check(now);
            for (LongConsumer duty : duties) {
                duty.accept(now);
            }
            purgeWhenDue(now);
        } catch (RuntimeException | Error e) {
            log.error("Keeper cycle of node '{}' failed unexpectedly; it runs again in {} ms", nodeId,
                    TimeUnit.NANOSECONDS.toMillis(tickNanos), e);
        }
    }

    private void purgeWhenDue(long now) {
        if (purgeInterval.isZero() || now - nextPurgeNanos < 0) {
            return;
        }
        nextPurgeNanos = now + purgeInterval.toNanos();
        try {
            int purged = calls.purge();
            if (purged > 0) {
                log.debug("Node '{}' purged {} idle lock records from {}", nodeId, purged, store);
            }
        } catch (LockManagerException | RuntimeException e) {
            log.warn("Node '{}' could not purge idle lock records from {}: {}. Trying again in {}", nodeId, store,
                    e.toString(), purgeInterval);
        }
    }

    private void watch() {
        try {
            watchdog.watch();
        } catch (RuntimeException | Error e) {
            log.error("Watchdog of node '{}' failed unexpectedly; it runs again in {} ms", nodeId,
                    TimeUnit.NANOSECONDS.toMillis(watchNanos), e);
        }
    }
}
