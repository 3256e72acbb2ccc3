package io.github.lockmanager.engine;

import io.github.lockmanager.LockLossListener;
import io.github.lockmanager.LockLossReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a holder its lock is lost: ends the acquisition, interrupts the holder, logs, counts, and calls the loss
 * listener, once per acquisition. Also for an acquisition its holder already ended, whose release found the record
 * no longer its own or whose lease may have ended before it: that holder is told the same way, but not interrupted,
 * since it has stopped.
 */
final class Losses {
    private static final Logger log = LoggerFactory.getLogger(Losses.class);

    private final String nodeId;
    private final LockLossListener lossListener;
    private final AcquisitionTable table;
    private final StoreCalls calls;
    private final Events events;

    Losses(EngineSettings settings, AcquisitionTable table, StoreCalls calls, Events events) {
        this.nodeId = settings.nodeId();
        this.lossListener = settings.lossListener();
        this.table = table;
        this.calls = calls;
        this.events = events;
    }

    /** Ends a held acquisition as lost and tells its holder; {@code false} if it was no longer held. */
    boolean lose(Acquisition acquisition, LockLossReason reason) {
        if (!acquisition.loseIfHeld()) {
            return false;
        }
        table.retire(acquisition);
        Thread holder = acquisition.holder();
        if (holder != null && holder.isAlive()) {
            calls.interrupt(holder);
        }
        log.error("Lock {} on node '{}' is LOST ({}): {}. The holder {} and must stop the work the lock protects; "
                        + "another node may take the key now.", acquisition, nodeId, reason, why(reason),
                holder != null ? "thread was interrupted" : "is told through its listener and its whenEnded stage");
        tell(acquisition, holder, reason);
        return true;
    }

    /**
     * Tells the holder of an acquisition it ended itself that the lock was lost while it held it; {@code false} if it
     * was told already.
     */
    boolean lostBeforeRelease(Acquisition acquisition, LockLossReason reason) {
        if (!acquisition.markLostAfterEnd()) {
            return false;
        }
        log.error("Lock {} on node '{}' was LOST ({}) before its holder released it: {}. Work done under it may have "
                + "overlapped another holder's; nothing of anyone else's was touched.", acquisition, nodeId, reason,
                reason == LockLossReason.NOT_OWNED ? "the store no longer had it as this acquisition's"
                        : "its lease may have ended by this node's clock, with no renewal confirmed (a pause of this process, say)");
        tell(acquisition, acquisition.holder(), reason);
        return true;
    }

    private static String why(LockLossReason reason) {
        return reason == LockLossReason.NOT_OWNED ? "the store says it is no longer this acquisition's"
                : "no renewal was confirmed and the lease would end before the next attempt";
    }

    private void tell(Acquisition acquisition, Thread holder, LockLossReason reason) {
        events.lost(acquisition, reason);
        try {
            lossListener.lockLost(acquisition.grantedLock(nodeId), holder, reason);
        } catch (RuntimeException e) {
            log.error("Lock loss listener failed for lock {} on node '{}'", acquisition, nodeId, e);
        }
        acquisition.toldLost(nodeId, reason);
    }
}
