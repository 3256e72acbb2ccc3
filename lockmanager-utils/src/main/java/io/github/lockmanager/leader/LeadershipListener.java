package io.github.lockmanager.leader;

import io.github.lockmanager.LockLossReason;

/**
 * Told when its member of a {@link LeaderElection} is elected and when its term ends. Both run on the election's own
 * thread, one at a time and in order: {@code revoked} of a term always after its {@code elected}. Keep them short
 * (hand long work to an executor of your own): the next term's news waits for them. An exception thrown here is
 * logged and otherwise ignored. Both do nothing unless overridden.
 *
 * <p>{@code revoked} is called before another member can be elected, where this JVM runs: for a yield, an abort or a
 * close before the lock is given back; for a loss, when the manager finds that the lease may end, which is before it
 * does. A JVM paused past its lease learns it late, so work of a term checks {@link Term#check} before each step and
 * hands its resource the term's {@linkplain Term#number() number}.
 */
public interface LeadershipListener {

    /** This member leads from now on, for {@code term}. */
    default void elected(Term term) {
    }

    /**
     * {@code term} is over: given up (a {@linkplain LeaderElection#yieldLeadership yield}, an abort asked on any node,
     * the election closed), then {@code reason} is {@code null}; or lost ({@code reason} says how).
     */
    default void revoked(Term term, LockLossReason reason) {
    }
}
