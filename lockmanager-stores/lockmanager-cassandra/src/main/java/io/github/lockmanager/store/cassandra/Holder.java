package io.github.lockmanager.store.cassandra;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;

import java.time.Instant;

/**
 * One holder of a key as the key's state cell keeps it ({@link KeyState}). Times are epoch milliseconds of the clock
 * of the node that wrote them: Cassandra has no clock a condition can read, so every lease is judged by the clocks of
 * the nodes ({@link KeyStates}).
 */
record Holder(String owner, LockMode mode, int permits, String nodeId, String threadName, long lockMillis,
              long expiresMillis, long token, boolean aborted) {

    /** Whether the lease has not ended at {@code nowMillis}, allowing {@code graceMillis} for the writer's clock. */
    boolean liveAt(long nowMillis, long graceMillis) {
        return nowMillis <= expiresMillis + graceMillis;
    }

    Holder renewedUntil(long expiresMillis) {
        return new Holder(owner, mode, permits, nodeId, threadName, lockMillis, expiresMillis, token, aborted);
    }

    Holder abortMarked() {
        return new Holder(owner, mode, permits, nodeId, threadName, lockMillis, expiresMillis, token, true);
    }

    LockRecord record(LockKey key) {
        return new LockRecord(new LockHandle(key, owner), nodeId, threadName, Instant.ofEpochMilli(lockMillis),
                Instant.ofEpochMilli(expiresMillis), aborted ? LockStatus.ABORT : LockStatus.RUNNING, token, mode, permits);
    }
}
