package io.github.lockmanager.engine;

import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.TimeSource;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Renews every held lock in batches when renewal is due, and checks them for abort marks in between. Locks taken
 * with a lease of their own are renewed with their lease and on their own schedule, in batches of their own: one
 * store call renews one lease, so each lease in use costs its own batches. Driven by
 * the local table, never by what the store says this node owns, so a lock released locally is never kept alive.
 * A lock lent to guarded work is only checked: the work may keep its record busy, and a renewal waiting for it
 * would hold up the whole batch.
 * Runs on the keeper thread only, which is why its fields need no synchronization.
 */
final class Renewal {
    private static final Logger log = LoggerFactory.getLogger(Renewal.class);

    private final String nodeId;
    private final LockStore store;
    private final TimeSource time;
    private final LeasePolicy leases;
    private final int batchSize;
    private final AcquisitionTable table;
    private final StoreCalls calls;
    private final Delivery delivery;
    private final Events events;
    /**
     * When each lease in use is due for renewal. The default lease keeps its entry, so that its schedule runs on
     * from the start as before; another lease's entry goes when no lock has it.
     */
    private final Map<LeasePolicy, Long> nextRenewalNanos = new HashMap<>();
    /** Store calls failed in a row. */
    private int failures;
    /** How often the keeper runs {@link #cycle} now; only the keeper's thread touches it. */
    private long paceNanos;
    /** When the last slow-cycle warning was logged. */
    private long slowCycleWarnedAtNanos;
    private boolean slowCycleWarned;

    Renewal(EngineSettings settings, AcquisitionTable table, StoreCalls calls, Delivery delivery, Events events) {
        this.calls = calls;
        this.nodeId = settings.nodeId();
        this.store = settings.store();
        this.time = settings.timeSource();
        this.leases = settings.leases();
        this.batchSize = settings.renewalBatchSize();
        this.table = table;
        this.delivery = delivery;
        this.events = events;
        this.nextRenewalNanos.put(leases, leases.nextRenewal(time.nanoTime()));
    }

    /**
     * Renews (when due) or checks every held lock, one store call per batch; {@code paceNanos} is how often the
     * keeper runs this now (faster than the manager's tick once a shorter lease was asked for), which its logs name.
     */
    void cycle(long nowNanos, long paceNanos) {
        this.paceNanos = paceNanos;
        List<Acquisition> held = table.held();
        List<Acquisition> guarded = table.removeGuarded(held);
        Map<LeasePolicy, List<Acquisition>> byLease = byLease(held);
        nextRenewalNanos.keySet().removeIf(policy -> policy != leases && !byLease.containsKey(policy));
        int renewed = 0;
        // a check carries no lease: every lock not renewed now is checked in the same batches, whatever its lease
        List<List<Acquisition>> checked = new ArrayList<>(2);
        if (!guarded.isEmpty()) {
            checked.add(guarded);
        }
        for (Map.Entry<LeasePolicy, List<Acquisition>> group : byLease.entrySet()) {
            LeasePolicy policy = group.getKey();
            List<Acquisition> locks = group.getValue();
            long due = nextRenewalNanos.computeIfAbsent(policy, p -> p.nextRenewal(earliestGrant(locks)));
            if (nowNanos - due < 0) {
                checked.add(locks);
                continue;
            }
            boolean allAnswered = true;
            for (int from = 0; from < locks.size(); from += batchSize) {
                allAnswered &= ask(locks.subList(from, Math.min(locks.size(), from + batchSize)), true, policy);
            }
            renewed += locks.size();
            if (allAnswered) {
                nextRenewalNanos.put(policy, policy.nextRenewal(nowNanos));
            }
        }
        if (!byLease.containsKey(leases) && nowNanos - nextRenewalNanos.get(leases) >= 0) {
            nextRenewalNanos.put(leases, leases.nextRenewal(nowNanos));
        }
        List<Acquisition> checking = joined(checked);
        for (int from = 0; from < checking.size(); from += batchSize) {
            ask(checking.subList(from, Math.min(checking.size(), from + batchSize)), false, leases);
        }
        if (renewed > 0) {
            reportCycle(renewed, time.nanoTime() - nowNanos);
        }
    }

    /** The lists as one; the one list itself when there is one (the common case: no copy of every held lock). */
    private static List<Acquisition> joined(List<List<Acquisition>> lists) {
        if (lists.size() == 1) {
            return lists.get(0);
        }
        List<Acquisition> all = new ArrayList<>();
        lists.forEach(all::addAll);
        return all;
    }

    /** A new lease group is first due one renewal interval after its first lock was asked for. */
    private static long earliestGrant(List<Acquisition> locks) {
        long earliest = locks.get(0).grantedAtNanos();
        for (Acquisition acquisition : locks) {
            earliest = acquisition.grantedAtNanos() - earliest < 0 ? acquisition.grantedAtNanos() : earliest;
        }
        return earliest;
    }

    /** The held locks by lease; one list, without copying, when all have the default lease (the common case). */
    private Map<LeasePolicy, List<Acquisition>> byLease(List<Acquisition> held) {
        int firstOther = 0;
        while (firstOther < held.size() && held.get(firstOther).leases() == leases) {
            firstOther++;
        }
        if (firstOther == held.size()) {
            return held.isEmpty() ? Map.of() : Map.of(leases, held);
        }
        Map<LeasePolicy, List<Acquisition>> groups = new HashMap<>();
        for (Acquisition acquisition : held) {
            groups.computeIfAbsent(acquisition.leases(), policy -> new ArrayList<>()).add(acquisition);
        }
        return groups;
    }

    /** Renews (with {@code policy}'s lease) or checks one batch; {@code false} if the store gave no answer for some lock. */
    private boolean ask(List<Acquisition> batch, boolean renewing, LeasePolicy policy) {
        long sentAt = time.nanoTime();
        List<LockHandle> handles = new ArrayList<>(batch.size());
        for (Acquisition acquisition : batch) {
            if (renewing && acquisition.leases().atRisk(acquisition.confirmedUntilNanos(), sentAt)) {
                // its lease may have ended before this renewal (a pause of this process, say): a renewal now would
                // keep a lock alive whose holder worked past its lease; the watchdog's rule, applied before the call
                delivery.lose(acquisition, LockLossReason.RENEWAL_UNCONFIRMED);
                continue;
            }
            handles.add(acquisition.handle());
        }
        if (handles.isEmpty()) {
            return true;
        }
        Map<LockHandle, HoldState> answers;
        try {
            answers = renewing ? calls.renew(handles, policy.lease()) : calls.check(handles);
        } catch (LockManagerException | RuntimeException e) {
            if (renewing) {
                events.renewalFailed(batch.size(), e);
            }
            if (failures++ == 0) {
                log.warn("Could not {} {} locks of node '{}' (first: {}): {}. Retrying every {}; a lock whose renewal "
                                + "is not confirmed before its lease ends is declared lost", renewing ? "renew" : "check",
                        batch.size(), nodeId, batch.get(0), e.toString(), Duration.ofNanos(paceNanos));
            } else {
                log.debug("Store call for {} locks of node '{}' failed again: {}", batch.size(), nodeId, e.toString());
            }
            return false;
        }
        if (failures > 0) {
            log.info("Store answers node '{}' again after {} failed calls", nodeId, failures);
            failures = 0;
        }
        if (renewing) {
            events.renewed(batch.size(), time.nanoTime() - sentAt);
        }
        long confirmedUntil = policy.leaseEnd(sentAt);
        boolean complete = true;
        for (Acquisition acquisition : batch) {
            HoldState state = answers.get(acquisition.handle());
            if (state == null && acquisition.isLost()) {
                continue;
            }
            if (state == null) {
                // the store could not tell for this lock (a row-level error): ask again next tick
                log.warn("Store {} could not tell whether lock {} of node '{}' is still held; its lease counts as "
                        + "unconfirmed and it is asked again in {}", store, acquisition, nodeId, Duration.ofNanos(paceNanos));
                complete = false;
                continue;
            }
            if (state == HoldState.LOST) {
                delivery.lose(acquisition, LockLossReason.NOT_OWNED);
                continue;
            }
            if (renewing) {
                acquisition.confirmUntil(confirmedUntil);
            }
            if (state == HoldState.ABORT_REQUESTED) {
                delivery.abort(acquisition);
            }
        }
        return complete;
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
        int batches = (locks + batchSize - 1) / batchSize;
        log.warn("Renewing the {} locks of node '{}' took {} ms in {} store calls, more than a quarter of the lease "
                        + "({} ms): if a cycle grows past about {} ms, locks are declared lost although the store is up. "
                        + "Look at the store's latency, raise renewalBatchSize ({}) or lengthen the lease.", locks,
                nodeId, TimeUnit.NANOSECONDS.toMillis(tookNanos), batches, leases.lease().toMillis(),
                leases.longestSafeCycle().toMillis(), batchSize);
    }
}
