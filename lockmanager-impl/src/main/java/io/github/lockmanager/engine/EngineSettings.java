package io.github.lockmanager.engine;

import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLossListener;
import io.github.lockmanager.TimeSource;
import io.github.lockmanager.spi.LockStore;

import java.time.Duration;

/** The validated settings of one lock manager, as {@link LockManagerBuilder} made them. */
record EngineSettings(LockStore store, String clientId, String farmId, String nodeId, Duration lease,
                      Duration renewalInterval, Duration abortPollInterval, int renewalBatchSize,
                      LockLevel defaultLevel, TimeSource timeSource, LockLossListener lossListener,
                      Duration shutdownTimeout, Duration purgeInterval, boolean registerMBean) {

    /** How often the keeper thread runs: often enough for both renewal and abort polling. */
    Duration tick() {
        return renewalInterval.compareTo(abortPollInterval) <= 0 ? renewalInterval : abortPollInterval;
    }

    /**
     * How long before the known end of a lease an unconfirmed lock is declared lost: the holder must hear of
     * it before another node can take the key, despite a loaded machine's scheduling delays and clock-rate
     * differences, while renewal (every third of the lease at most, retried each tick) still gets two chances.
     */
    Duration lossMargin() {
        return lease.dividedBy(5);
    }

    /** How long a renewal cycle may take before the keeper warns that it is growing towards the lease. */
    Duration slowCycleWarning() {
        return lease.dividedBy(4);
    }

    /** How often the watchdog looks for leases that are about to end unconfirmed: at least as often as the keeper runs. */
    Duration watchdogPeriod() {
        Duration twentieth = lease.dividedBy(20);
        return twentieth.compareTo(tick()) <= 0 ? twentieth : tick();
    }
}
