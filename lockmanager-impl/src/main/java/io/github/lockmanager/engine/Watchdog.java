package io.github.lockmanager.engine;

import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.TimeSource;

/**
 * Declares lost any lock whose lease (its own, when it was asked with one) is about to end without a confirmed
 * renewal. It does no I/O, so a holder is
 * told in time even while a store call of the keeper hangs.
 */
final class Watchdog {
    private final TimeSource time;
    private final AcquisitionTable table;
    private final Delivery delivery;

    Watchdog(EngineSettings settings, AcquisitionTable table, Delivery delivery) {
        this.time = settings.timeSource();
        this.table = table;
        this.delivery = delivery;
    }

    void watch() {
        long now = time.nanoTime();
        for (Acquisition acquisition : table.held()) {
            if (acquisition.leases().atRisk(acquisition.confirmedUntilNanos(), now)) {
                delivery.lose(acquisition, LockLossReason.RENEWAL_UNCONFIRMED);
            }
        }
    }
}
