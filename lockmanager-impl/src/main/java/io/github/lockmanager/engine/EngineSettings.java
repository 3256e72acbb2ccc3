package io.github.lockmanager.engine;

import io.github.lockmanager.LockEventListener;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLossListener;
import io.github.lockmanager.TimeSource;
import io.github.lockmanager.spi.LockStore;

import java.time.Duration;

/**
 * The validated settings of one lock manager, as {@link LockManagerBuilder} made them; the timing rules are
 * {@link #leases()}'s. {@code heldTooLong} is {@code Duration.ZERO} when holds are not watched for length;
 * {@code maxLocalHandOffs} is 0 when keys are never handed over between threads of this node; {@code fair} is whether
 * a spec that says nothing waits in turn.
 */
record EngineSettings(LockStore store, String clientId, String farmId, String nodeId, LeasePolicy leases,
                      int renewalBatchSize, LockLevel defaultLevel, TimeSource timeSource,
                      LockLossListener lossListener, LockEventListener eventListener, Duration shutdownTimeout, Duration purgeInterval,
                      boolean registerMBean, char pathSeparator, Duration heldTooLong,
                      int maxLocalHandOffs, Duration waitPollInterval, boolean fair) {
}
