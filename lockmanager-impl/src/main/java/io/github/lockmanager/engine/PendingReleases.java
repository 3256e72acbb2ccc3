package io.github.lockmanager.engine;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Releases of this node's records that the store did not confirm, retried by the keeper until one succeeds or the
 * lease has ended anyway (then the store no longer counts the record). Every release of the engine goes through
 * {@link #release}, which queues it here when the store fails.
 */
final class PendingReleases {
    private static final Logger log = LoggerFactory.getLogger(PendingReleases.class);

    private final String nodeId;
    private final LockStore store;
    private final StoreCalls calls;
    /** Releases to retry, with the engine time after which the lease has ended anyway. */
    private final Map<LockHandle, Long> pending = new ConcurrentHashMap<>();

    PendingReleases(EngineSettings settings, StoreCalls calls) {
        this.nodeId = settings.nodeId();
        this.store = settings.store();
        this.calls = calls;
    }

    /**
     * Removes the record of {@code handle} if it is still that handle's, or queues that until {@code leaseEndNanos};
     * {@code false} if the store answered that it was no longer that handle's.
     */
    boolean release(LockHandle handle, long leaseEndNanos) {
        try {
            return calls.release(handle);
        } catch (LockManagerException | RuntimeException e) {
            log.warn("Could not release lock '{}' of node '{}' in store {}: {}. Retrying in the background until its "
                    + "lease ends", handle.key().name(), nodeId, store, e.toString());
            later(handle, leaseEndNanos);
            return true;
        }
    }

    /** Retries the release of {@code handle} until it succeeds or {@code leaseEndNanos} has passed. */
    void later(LockHandle handle, long leaseEndNanos) {
        pending.merge(handle, leaseEndNanos, Math::max);
    }

    boolean contains(LockHandle handle) {
        return pending.containsKey(handle);
    }

    /** Tries a pending release at once; {@code true} if the record is no longer there for {@code handle}. */
    boolean releaseNow(LockHandle handle) {
        try {
            calls.release(handle);
            pending.remove(handle);
            return true;
        } catch (LockManagerException | RuntimeException e) {
            log.warn("Release of lock '{}' of node '{}' failed again: {}", handle.key().name(), nodeId, e.toString());
            return false;
        }
    }

    /** One attempt at every pending release; those whose lease has ended by {@code nowNanos} are given up. */
    void retry(long nowNanos) {
        for (Iterator<Map.Entry<LockHandle, Long>> it = pending.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<LockHandle, Long> entry = it.next();
            LockHandle handle = entry.getKey();
            try {
                calls.release(handle);
                it.remove();
                log.info("Pending release of lock '{}' of node '{}' done", handle.key().name(), nodeId);
            } catch (LockManagerException | RuntimeException e) {
                if (nowNanos - entry.getValue() >= 0) {
                    it.remove();
                    log.warn("Giving up releasing lock '{}' of node '{}' ({}): its lease has ended, so the store no "
                            + "longer counts it", handle.key().name(), nodeId, e.toString());
                }
            }
        }
    }

    /** The last attempt, at shutdown: what still fails is left to expire. */
    void retryOnClose(long nowNanos) {
        retry(nowNanos);
        if (!pending.isEmpty()) {
            log.warn("Node '{}' closes with {} lock records it could not release: they expire after their lease",
                    nodeId, pending.size());
        }
    }
}
