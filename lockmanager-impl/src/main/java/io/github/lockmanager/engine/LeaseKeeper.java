package io.github.lockmanager.engine;

import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.TimeSource;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The background work of one lock manager, on two named daemon threads:
 * <ul>
 *   <li>the keeper ({@code lockmanager-<node>-keeper}) renews every held lock in batches each renewal
 *       interval, polls the store for abort marks in between, releases locks of dead holder threads and
 *       retries releases that failed. Renewal is driven by the local table, never by what the store
 *       says this node owns, so a lock released locally is never kept alive;</li>
 *   <li>the watchdog ({@code lockmanager-<node>-watchdog}) does no I/O: it declares lost any lock whose lease
 *       is about to end without a confirmed renewal, so the holder is told even while a store call hangs.</li>
 * </ul>
 */
final class LeaseKeeper {
    private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

    private final LockEngine engine;
    private final EngineSettings settings;
    private final LockStore store;
    private final TimeSource time;
    private final LeasePolicy leases;
    private final NamedThreadFactory keeperThreads;
    private final NamedThreadFactory watchdogThreads;
    private final ScheduledExecutorService keeperThread;
    private final ScheduledExecutorService watchdogThread;
    /** Releases to retry, with the engine time after which the lease has ended anyway. */
    private final Map<LockHandle, Long> pendingReleases = new ConcurrentHashMap<>();
    /** Only touched by the keeper thread. */
    private long nextRenewalNanos;
    /** Store calls failed in a row; only touched by the keeper thread. */
    private int failures;
    /** Only touched by the keeper thread. */
    private long nextPurgeNanos;
    /** When the last slow-cycle warning was logged; only touched by the keeper thread. */
    private long slowCycleWarnedAtNanos;
    private boolean slowCycleWarned;

    LeaseKeeper(LockEngine engine, EngineSettings settings) {
        this.engine = engine;
        this.settings = settings;
        this.store = settings.store();
        this.time = settings.timeSource();
        this.leases = settings.leases();
        this.keeperThreads = new NamedThreadFactory("lockmanager-" + settings.nodeId() + "-keeper");
        this.watchdogThreads = new NamedThreadFactory("lockmanager-" + settings.nodeId() + "-watchdog");
        this.keeperThread = Executors.newSingleThreadScheduledExecutor(keeperThreads);
        this.watchdogThread = Executors.newSingleThreadScheduledExecutor(watchdogThreads);
    }

    void start() {
        nextRenewalNanos = leases.nextRenewal(time.nanoTime());
        nextPurgeNanos = time.nanoTime() + settings.purgeInterval().toNanos();
        long tick = leases.tick().toNanos();
        keeperThread.scheduleWithFixedDelay(this::keep, tick, tick, TimeUnit.NANOSECONDS);
        long watch = leases.watchdogPeriod().toNanos();
        watchdogThread.scheduleWithFixedDelay(this::watch, watch, watch, TimeUnit.NANOSECONDS);
    }

    /** Stops both threads, then makes one last attempt at the releases still pending. */
    void stop() {
        keeperThread.shutdownNow();
        watchdogThread.shutdownNow();
        boolean interrupted = false;
        try {
            if (!keeperThreads.awaitExit(settings.shutdownTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS)) {
                log.warn("Keeper thread of node '{}' did not stop in time: a store call is hanging", settings.nodeId());
            }
            watchdogThreads.awaitExit(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            interrupted = true;
        }
        retryPendingReleases(time.nanoTime());
        if (!pendingReleases.isEmpty()) {
            log.warn("Node '{}' closes with {} lock records it could not release: they expire after their lease",
                    settings.nodeId(), pendingReleases.size());
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Retries the release of {@code handle} until it succeeds or {@code leaseEndNanos} has passed. */
    void releaseLater(LockHandle handle, long leaseEndNanos) {
        pendingReleases.merge(handle, leaseEndNanos, Math::max);
    }

    boolean isPendingRelease(LockHandle handle) {
        return pendingReleases.containsKey(handle);
    }

    /** Tries a pending release at once; {@code true} if the record is no longer there for {@code handle}. */
    boolean releaseNow(LockHandle handle) {
        try {
            store.release(handle);
            pendingReleases.remove(handle);
            return true;
        } catch (LockManagerException | RuntimeException e) {
            log.warn("Release of lock '{}' of node '{}' failed again: {}", handle.key().name(), settings.nodeId(), e.toString());
            return false;
        }
    }

    private void keep() {
        try {
            long now = time.nanoTime();
            for (Acquisition acquisition : engine.heldAcquisitions()) {
                if (!acquisition.isHolderAlive()) {
                    engine.reclaim(acquisition);
                }
            }
            retryPendingReleases(now);
            List<Acquisition> held = engine.heldAcquisitions();
            boolean renewing = now - nextRenewalNanos >= 0;
            boolean allAnswered = true;
            int batch = settings.renewalBatchSize();
            for (int from = 0; from < held.size(); from += batch) {
                allAnswered &= ask(held.subList(from, Math.min(held.size(), from + batch)), renewing);
            }
            if (renewing && allAnswered) {
                nextRenewalNanos = leases.nextRenewal(now);
            }
            if (renewing) {
                reportCycle(held.size(), time.nanoTime() - now);
            }
            purgeWhenDue(now);
        } catch (RuntimeException | Error e) {
            log.error("Keeper cycle of node '{}' failed unexpectedly; it runs again in {}", settings.nodeId(),
                    leases.tick(), e);
        }
    }

    /**
     * Warns, at most once a minute, when renewing every held lock takes more than a quarter of the lease: a lock
     * is declared lost when its renewal is late by a fifth of the lease, so the operator must act before the
     * cycle grows that far.
     */
    private void reportCycle(int locks, long tookNanos) {
        long now = time.nanoTime();
        if (tookNanos <= leases.slowCycleWarning().toNanos()
                || (slowCycleWarned && now - slowCycleWarnedAtNanos < TimeUnit.MINUTES.toNanos(1))) {
            return;
        }
        slowCycleWarned = true;
        slowCycleWarnedAtNanos = now;
        int batches = (locks + settings.renewalBatchSize() - 1) / settings.renewalBatchSize();
        log.warn("Renewing the {} locks of node '{}' took {} ms in {} store calls, more than a quarter of the lease "
                        + "({} ms): if a cycle grows past about {} ms, locks are declared lost although the store is up. "
                        + "Look at the store's latency, raise renewalBatchSize ({}) or lengthen the lease.", locks,
                settings.nodeId(), TimeUnit.NANOSECONDS.toMillis(tookNanos), batches, leases.lease().toMillis(),
                leases.longestSafeCycle().toMillis(),
                settings.renewalBatchSize());
    }

    private void purgeWhenDue(long now) {
        if (settings.purgeInterval().isZero() || now - nextPurgeNanos < 0) {
            return;
        }
        nextPurgeNanos = now + settings.purgeInterval().toNanos();
        try {
            int purged = store.purgeIdleRecords();
            if (purged > 0) {
                log.debug("Node '{}' purged {} idle lock records from {}", settings.nodeId(), purged, store);
            }
        } catch (LockManagerException | RuntimeException e) {
            log.warn("Node '{}' could not purge idle lock records from {}: {}. Trying again in {}", settings.nodeId(),
                    store, e.toString(), settings.purgeInterval());
        }
    }

    /** Renews or checks one batch; {@code false} if the store gave no answer for some lock. */
    private boolean ask(List<Acquisition> batch, boolean renewing) {
        List<LockHandle> handles = new ArrayList<>(batch.size());
        for (Acquisition acquisition : batch) {
            handles.add(acquisition.handle());
        }
        long sentAt = time.nanoTime();
        Map<LockHandle, HoldState> answers;
        try {
            answers = renewing ? store.renew(handles, leases.lease()) : store.check(handles);
        } catch (LockManagerException | RuntimeException e) {
            if (failures++ == 0) {
                log.warn("Could not {} {} locks of node '{}' (first: {}): {}. Retrying every {}; a lock whose renewal "
                                + "is not confirmed before its lease ends is declared lost", renewing ? "renew" : "check",
                        batch.size(), settings.nodeId(), batch.get(0), e.toString(), leases.tick());
            } else {
                log.debug("Store call for {} locks of node '{}' failed again: {}", batch.size(), settings.nodeId(), e.toString());
            }
            return false;
        }
        if (failures > 0) {
            log.info("Store answers node '{}' again after {} failed calls", settings.nodeId(), failures);
            failures = 0;
        }
        long confirmedUntil = leases.leaseEnd(sentAt);
        boolean complete = true;
        for (Acquisition acquisition : batch) {
            HoldState state = answers.get(acquisition.handle());
            if (state == null) {
                // the store could not tell for this lock (a row-level error): ask again next tick
                log.warn("Store {} could not tell whether lock {} of node '{}' is still held; its lease counts as "
                        + "unconfirmed and it is asked again in {}", store, acquisition, settings.nodeId(), leases.tick());
                complete = false;
                continue;
            }
            switch (state) {
                case LOST -> engine.lose(acquisition, LockLossReason.NOT_OWNED);
                case ABORT_REQUESTED -> {
                    confirm(acquisition, renewing, confirmedUntil);
                    engine.deliverAbort(acquisition);
                }
                case HELD -> confirm(acquisition, renewing, confirmedUntil);
            }
        }
        return complete;
    }

    private static void confirm(Acquisition acquisition, boolean renewed, long confirmedUntil) {
        if (renewed) {
            acquisition.confirmUntil(confirmedUntil);
        }
    }

    private void retryPendingReleases(long now) {
        for (Iterator<Map.Entry<LockHandle, Long>> it = pendingReleases.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<LockHandle, Long> pending = it.next();
            LockHandle handle = pending.getKey();
            try {
                store.release(handle);
                it.remove();
                log.info("Pending release of lock '{}' of node '{}' done", handle.key().name(), settings.nodeId());
            } catch (LockManagerException | RuntimeException e) {
                if (now - pending.getValue() >= 0) {
                    it.remove();
                    log.warn("Giving up releasing lock '{}' of node '{}' ({}): its lease has ended, so the store no "
                            + "longer counts it", handle.key().name(), settings.nodeId(), e.toString());
                }
            }
        }
    }

    private void watch() {
        try {
            long now = time.nanoTime();
            for (Acquisition acquisition : engine.heldAcquisitions()) {
                if (leases.atRisk(acquisition.confirmedUntilNanos(), now)) {
                    engine.lose(acquisition, LockLossReason.RENEWAL_UNCONFIRMED);
                }
            }
        } catch (RuntimeException | Error e) {
            log.error("Watchdog of node '{}' failed unexpectedly; it runs again in {}", settings.nodeId(),
                    leases.watchdogPeriod(), e);
        }
    }
}
