package io.github.lockmanager.engine;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.TimeSource;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Locks kept locked after their last hold was given back, until a time the holder chose (held at least, ShedLock's
 * {@code lockAtLeastFor}). A lease that ends sooner is extended in the store (a renewal, owner-checked); one that ends
 * later stays as it is and the record is released when the time has come, at the keeper's first tick after it. A
 * lease is never shortened: a store may not honour that (on HBase the older, longer-lived owner cell would show
 * again), and a node that dies meanwhile then leaves the key locked longer, never shorter.
 */
final class KeptLocks {
    private static final Logger log = LoggerFactory.getLogger(KeptLocks.class);

    private final String nodeId;
    private final LockStore store;
    private final TimeSource time;
    private final StoreCalls calls;
    private final PendingReleases pending;
    /** Locks kept after their last hold, to release when their time comes. */
    private final Map<LockHandle, Kept> kept = new ConcurrentHashMap<>();

    /** A kept lock: the engine time to release it at, and the end of its last confirmed lease. */
    private record Kept(long untilNanos, long leaseEndNanos) {
    }

    KeptLocks(EngineSettings settings, StoreCalls calls, PendingReleases pending) {
        this.nodeId = settings.nodeId();
        this.store = settings.store();
        this.time = settings.timeSource();
        this.calls = calls;
        this.pending = pending;
    }

    /** Keeps the record of {@code acquisition}, whose last hold was given back, locked for {@code remainingNanos}. */
    void keep(Acquisition acquisition, long remainingNanos) {
        LockHandle handle = acquisition.handle();
        long untilNanos = time.nanoTime() + remainingNanos;
        if (untilNanos - acquisition.confirmedUntilNanos() <= 0) {
            kept.put(handle, new Kept(untilNanos, acquisition.confirmedUntilNanos()));
            if (log.isDebugEnabled()) {
                log.debug("Lock '{}' of node '{}' stays locked for {} more after its holder closed it, then is released",
                        handle.key().name(), nodeId, Duration.ofNanos(remainingNanos));
            }
        } else {
            extend(handle, Duration.ofNanos(remainingNanos));
        }
    }

    private void extend(LockHandle handle, Duration remaining) {
        try {
            HoldState state = calls.run(() -> store.renew(List.of(handle), remaining)).get(handle);
            if (state == HoldState.LOST) {
                log.warn("Lock '{}' of node '{}' was no longer this node's in the store when it was to be kept locked "
                        + "for {} more (its lease had ended or it was lost); the key is free", handle.key().name(),
                        nodeId, remaining);
            } else if (log.isDebugEnabled()) {
                log.debug("Lock '{}' of node '{}' stays locked for {} more after its holder closed it",
                        handle.key().name(), nodeId, remaining);
            }
        } catch (LockManagerException | RuntimeException e) {
            log.warn("Could not keep lock '{}' of node '{}' locked for {} more in store {}: {}. The key stays locked "
                    + "until its last renewed lease ends", handle.key().name(), nodeId, remaining, store, e.toString());
        }
    }

    /** Releases the kept locks whose time has come by {@code nowNanos}; a failed release is retried as any other. */
    void releaseDue(long nowNanos) {
        for (Iterator<Map.Entry<LockHandle, Kept>> it = kept.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<LockHandle, Kept> entry = it.next();
            if (nowNanos - entry.getValue().untilNanos() < 0) {
                continue;
            }
            it.remove();
            LockHandle handle = entry.getKey();
            try {
                calls.release(handle);
            } catch (LockManagerException | RuntimeException e) {
                log.warn("Could not release kept lock '{}' of node '{}' in store {}: {}. Retrying in the background "
                        + "until its lease ends", handle.key().name(), nodeId, store, e.toString());
                pending.later(handle, entry.getValue().leaseEndNanos());
            }
        }
    }

    /** At shutdown: releases what is due; the others stay locked until their leases end. */
    void releaseOnClose(long nowNanos) {
        releaseDue(nowNanos);
        if (!kept.isEmpty()) {
            log.info("Node '{}' closes with {} locks kept after their holders closed them: they stay locked until "
                    + "their leases end", nodeId, kept.size());
        }
    }
}
