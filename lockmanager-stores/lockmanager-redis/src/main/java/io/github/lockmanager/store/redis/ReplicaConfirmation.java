package io.github.lockmanager.store.redis;

import io.lettuce.core.RedisFuture;

import java.time.Duration;

/**
 * Confirms writes on replicas with {@code WAIT}, sent right behind the write on the same connection so that both
 * take one round trip: the write counts only once {@link #replicas} replicas acknowledged everything the connection
 * wrote until then. {@link #NONE} confirms nothing and costs nothing. Immutable.
 *
 * <p>What it gives: a grant or renewal the store reports was received by that many replicas, so a failover that
 * promotes one of them keeps it. What it does not: Redis replication stays asynchronous, a promoted replica may be one
 * that had not acknowledged, and a write that failed to be confirmed may still be on some replicas.
 */
record ReplicaConfirmation(int replicas, Duration timeout) {
    static final ReplicaConfirmation NONE = new ReplicaConfirmation(0, Duration.ZERO);

    boolean isOn() {
        return replicas > 0;
    }

    /** Sends {@code WAIT} behind what was just sent; {@code null} when off. */
    RedisFuture<Long> send(RedisAccess access) {
        return isOn() ? access.commands().waitForReplication(replicas, Math.max(1, timeout.toMillis())) : null;
    }

    /** Whether enough replicas acknowledged, by {@code WAIT}'s answer. */
    boolean confirmed(RedisFuture<Long> sent, long deadline) throws Exception {
        return sent == null || RedisAccess.await(sent, deadline) >= replicas;
    }
}
