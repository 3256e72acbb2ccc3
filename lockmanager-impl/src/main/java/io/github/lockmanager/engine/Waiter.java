package io.github.lockmanager.engine;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.LockKey;

import java.time.Instant;

/**
 * One wait for a lock, a thread's or a task's: what it waits for, how long, and where it is parked between tries (in
 * the {@link WaitQueue} of the key that refused it, or watching the store). {@link #wake()} is how a local release, a
 * store's announcement or its timer reaches it; {@link Waits} runs the tries. Small: ten thousand parked task waiters
 * are ten thousand of these.
 */
abstract class Waiter {
    final LockKey key;
    final LockMode mode;
    final long startNanos = System.nanoTime();
    final long budgetNanos;
    /** A fair wait's request and what it asks ({@link Requests}); {@code null} for an unfair wait. */
    final FairTurn turn;
    /** The key that refused the last try: {@link #key}, or for a path one of its ancestors; and the mode asked of it. */
    private volatile LockKey refusedKey;
    private volatile LockMode refusedMode;
    /**
     * Set by a local release that chose it ({@link WaitQueue#keyGone}): a waiter that leaves after one passes the turn
     * on.
     */
    volatile boolean wokenByRelease;
    volatile Runnable unwatch;
    /**
     * Whether {@link #unwatch} is a watch of its fair turn's line armed before this try read the line
     * ({@link Parking#tryOnce}), so that a withdrawal after that read wakes it; and whether one did.
     */
    volatile boolean lineArmed;
    volatile boolean lineMoved;
    PollBackoff backoff;
    /** Whether a try was made: later tries' refusals are this wait's, counted once. */
    boolean triedBefore;
    /**
     * Who held the key at the last refusal, which a try cut short by the wait's deadline ends the wait with. Kept as its
     * holder alone: the refusal itself would keep its stack trace, more than the rest of the waiter together.
     */
    private Refusal refused;
    /** A task waiter's next try: when, and its slot in {@link WakeTimes}' heap ({@code -1}: none); guarded by it. */
    long wakeDue;
    int wakeSlot = -1;

    Waiter(LockKey key, LockMode mode, long budgetNanos, FairTurn turn) {
        this.key = key;
        this.mode = mode;
        this.budgetNanos = budgetNanos;
        this.turn = turn;
        if (turn != null) {
            turn.wake = this::wake;
        }
        this.refusedKey = key;
        this.refusedMode = mode;
    }

    /** Tries again soon; from any thread. */
    abstract void wake();

    /** Whether the wait is over; a waiter found so in a queue is dropped. */
    abstract boolean isDone();

    LockKey refusedKey() {
        return refusedKey;
    }

    LockMode refusedMode() {
        return refusedMode;
    }

    /**
     * Notes a refusal: who held which key, so the wait parks for that key and can end naming its holder. Keeps
     * {@code shared} instead when it says the same (the waiters of one hot key are refused by one holder), and returns
     * what it keeps.
     */
    final Refusal refusedBy(AlreadyLockedException held, Refusal shared) {
        Refusal now = new Refusal(held.getKey(), held.getHolderNodeId(), held.getHolderThreadName(),
                held.isHeldOnThisNode(), held instanceof HeldUntil until ? until.leaseEnd : null);
        refused = now.equals(shared) ? shared : now;
        boolean own = held.getKey().equals(key.name());
        refusedKey = own ? key : key.withName(held.getKey());
        refusedMode = own ? mode : mode.intention();
        return refused;
    }

    /** The last refusal, or {@code null} before one. */
    final AlreadyLockedException lastRefusal() {
        return refused == null ? null : refused.exception();
    }

    /**
     * When the lease of the holder that refused the last try ends, where the store said ({@link HeldUntil}), else
     * {@code null}.
     */
    final Instant holderLeaseEnd() {
        return refused == null ? null : refused.leaseEnd();
    }

    /**
     * A refusal's holder, enough to say who held the key when a wait ends without it, and when its lease ends where the
     * store said.
     */
    record Refusal(String key, String holderNodeId, String holderThreadName, boolean heldOnThisNode,
                           Instant leaseEnd) {
        AlreadyLockedException exception() {
            return new AlreadyLockedException(key, holderNodeId, holderThreadName, heldOnThisNode);
        }
    }
}
