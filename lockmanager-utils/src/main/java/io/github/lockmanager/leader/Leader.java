package io.github.lockmanager.leader;

import io.github.lockmanager.Lock;

import java.time.Instant;

/**
 * Who leads an election, as any node sees it without joining ({@link LeaderElection#leaderOf}).
 *
 * @param node   the leader's node id
 * @param member the leading member's name
 * @param term   its term's number (the lock's fencing token)
 * @param since  when its term began, as the store recorded it
 */
public record Leader(String node, String member, long term, Instant since) {
    private static final String TASK = "task:";

    static Leader of(Lock lock) {
        String holder = lock.getHolderThreadName();
        String member = holder != null && holder.startsWith(TASK) ? holder.substring(TASK.length()) : holder;
        return new Leader(lock.getOwnerNodeId(), member, lock.getFencingToken(), lock.getLockTime());
    }
}
