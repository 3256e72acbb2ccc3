package io.github.lockmanager.engine;

import io.github.lockmanager.LockLossListener;
import io.github.lockmanager.LockLossReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Tells holders what happened to their locks: an abort asked for, or a loss (interrupt, log, loss listener). */
final class Delivery {
    private static final Logger log = LoggerFactory.getLogger(Delivery.class);

    private final String nodeId;
    private final LockLossListener lossListener;
    private final AcquisitionTable table;
    private final StoreCalls calls;
    private final Releaser releaser;
    private final Events events;

    Delivery(EngineSettings settings, AcquisitionTable table, StoreCalls calls, Releaser releaser, Events events) {
        this.nodeId = settings.nodeId();
        this.lossListener = settings.lossListener();
        this.table = table;
        this.calls = calls;
        this.releaser = releaser;
        this.events = events;
    }

    /** Interrupts the holder of a live acquisition, once per acquisition. */
    void abort(Acquisition acquisition) {
        if (!acquisition.takeAbortDelivery()) {
            return;
        }
        Thread holder = acquisition.holder();
        if (holder != null && holder.isAlive()) {
            log.info("Abort requested for lock {} on node '{}': interrupting the holder; the lock stays held until it "
                    + "unlocks or its lease ends", acquisition, nodeId);
            calls.interrupt(holder);
        }
        events.aborted(acquisition);
    }

    /** The store or the clock says {@code acquisition} is no longer ours: ends it and tells its holder. */
    void lose(Acquisition acquisition, LockLossReason reason) {
        if (!acquisition.loseIfHeld()) {
            return;
        }
        table.retire(acquisition);
        Thread holder = acquisition.holder();
        if (holder != null && holder.isAlive()) {
            calls.interrupt(holder);
        }
        if (reason == LockLossReason.RENEWAL_UNCONFIRMED && !table.isGuarded(acquisition)) {
            // the record may still be ours in the store: remove it once the store answers again (for a guarded one,
            // once its guard closes: until then its work keeps the record busy, and the release would wait for it)
            releaser.releaseLater(acquisition.handle(), acquisition.confirmedUntilNanos());
        }
        log.error("Lock {} on node '{}' is LOST ({}): {}. The holder thread was interrupted and must stop the work "
                        + "the lock protects; another node may take the key now.", acquisition, nodeId, reason,
                reason == LockLossReason.NOT_OWNED ? "the store says it is no longer this acquisition's"
                        : "no renewal was confirmed and the lease would end before the next attempt");
        events.lost(acquisition, reason);
        try {
            lossListener.lockLost(acquisition.grantedLock(nodeId), holder, reason);
        } catch (RuntimeException e) {
            log.error("Lock loss listener failed for lock {} on node '{}'", acquisition, nodeId, e);
        }
    }
}
