package io.github.lockmanager.engine;

import io.github.lockmanager.LockLossReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Tells holders what happened to their locks: an abort asked for, or a loss ({@link Releaser#lose}). */
final class Delivery {
    private static final Logger log = LoggerFactory.getLogger(Delivery.class);

    private final String nodeId;
    private final StoreCalls calls;
    private final Releaser releaser;
    private final Events events;

    Delivery(EngineSettings settings, StoreCalls calls, Releaser releaser, Events events) {
        this.nodeId = settings.nodeId();
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
        acquisition.abortRequested(nodeId);
        events.aborted(acquisition);
    }

    /** The store or the clock says {@code acquisition} is no longer ours: ends it and tells its holder. */
    void lose(Acquisition acquisition, LockLossReason reason) {
        releaser.lose(acquisition, reason);
    }
}
