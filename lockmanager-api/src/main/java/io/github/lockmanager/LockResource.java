package io.github.lockmanager;

import java.time.Duration;

/**
 * One hold on a lock, returned by {@link LockManager#lock(String)}. Made for try-with-resources:
 *
 * <pre>{@code
 * try (LockResource held = lockManager.lock("order-123")) {
 *     write(order, held.getFencingToken());
 * }
 * }</pre>
 *
 * <p>Thread rules: {@link #close()} may be called from any thread, not only the holder's, and releases
 * exactly the one hold this resource stands for; the lock's record leaves the store when its last hold is
 * released. A resource belongs to one acquisition: once that acquisition has ended (fully unlocked, lost or
 * released by shutdown), closing the resource does nothing, so a stale resource can never release a newer
 * lock on the same key.
 */
public interface LockResource extends AutoCloseable {

    /**
     * Releases this resource's hold, once: later calls do nothing. Never throws; a store failure while
     * releasing the last hold is logged and retried in the background until the lease would have ended.
     */
    @Override
    void close();

    /** The longest {@link #closeHeldAtLeast(Duration)} keeps a key locked: one day. */
    Duration MAX_HOLD_AT_LEAST = Duration.ofDays(1);

    /**
     * Releases this resource's hold as {@link #close()} does, except that when it is the lock's last hold and the
     * lock was acquired less than {@code atLeast} ago, the key stays locked, for every thread and node, until
     * {@code atLeast} after the acquisition (ShedLock's "lock at least for"): a scheduled job that ends early keeps
     * a node whose trigger fires a little later from running it again. The kept lock belongs to no thread: it is
     * not renewed, not among the held locks of this node's MXBean and has no holder to abort. If its lease would end
     * before that time, the lease is extended to it in the store (the record then ends by itself; on Aerospike, whose
     * record times count whole seconds, up to a second later); otherwise the manager releases the record when the
     * time has come, at its keeper's next tick (within the shorter of the renewal and abort-poll intervals). A lease
     * is never shortened, so if this node stops meanwhile the key stays locked until its lease ends: longer, never
     * shorter. An earlier hold of a re-entered lock only gives back that hold. Never throws for the store: if it
     * fails, the key stays locked until its last renewed lease ends, which is logged.
     *
     * @param atLeast from zero (which releases as {@link #close()} does) to {@link #MAX_HOLD_AT_LEAST}, measured
     *                from the acquisition on this node's clock
     * @throws IllegalArgumentException if {@code atLeast} is {@code null}, negative or above one day; nothing was
     *                                  released
     */
    void closeHeldAtLeast(Duration atLeast);

    /** Whether {@link #close()} was called on this resource. */
    boolean isClosed();

    /** The lock as it was when this hold was taken (for a re-entry: as the first hold saw it). */
    Lock getLock();

    /** {@code true} for a fresh acquisition from the store, {@code false} for a re-entry by the holding thread. */
    boolean isNewLock();

    /** The holding thread, or {@code null} once that thread has been garbage collected. */
    Thread getHolder();

    /**
     * Whether the lock was lost while held: the store said it no longer belongs to this acquisition, or its
     * renewal could not be confirmed before the lease would have run out. The holder thread was interrupted
     * when that happened; the work it protects must stop.
     */
    boolean isLost();

    /** This acquisition's fencing token; re-entries share it. See {@link Lock#getFencingToken()}. */
    long getFencingToken();

    /**
     * How much longer this hold is known to be this acquisition's, by this node's clock: the time left of the lease
     * the store last confirmed, counted from when the confirming call was sent (so it ends no later than the store's
     * own count of it, clocks that run at the same rate apart); {@link Duration#ZERO} once this resource is closed,
     * the lock lost or released, or that time passed (after a pause of this JVM longer than the lease, for one). Work
     * that must not outlive the hold (a leader's term) checks it before each step and keeps each step within it; a
     * pause between the check and the step is what the {@linkplain #getFencingToken fencing token} is for. Answered
     * without a store call, from any thread.
     */
    Duration remainingLease();

    /**
     * Lends this hold to work in the lock's own store that the lock must guard (see {@link GuardedHold}); the
     * stores' recipes call it. Close the guard when the work has ended, or end both with {@link GuardedHold#release}.
     * For a hierarchical lock, the guard is the resource's own hold, and releasing it also gives back the
     * ancestors' intentions.
     *
     * @throws LockLostException     if the lock has been lost or given back
     * @throws IllegalStateException if this resource is closed
     */
    GuardedHold guard() throws LockLostException;
}
