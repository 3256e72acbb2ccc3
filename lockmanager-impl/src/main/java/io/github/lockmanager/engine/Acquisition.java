package io.github.lockmanager.engine;

import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;

import java.lang.ref.WeakReference;
import java.util.concurrent.TimeUnit;

/**
 * One acquisition of one key by one thread of this node, from the store call that asks for it to the moment
 * it ends (last hold released, lost, reclaimed or shut down) and then is gone (its record released in the store,
 * or known not to be ours, and the entry out of the local table). Between the two, threads of this node still
 * see the key as held here, so a local waiter wakes only when the store will let it in. The local table maps
 * each key to at most one. State changes are short and under this object's monitor, which waiters for "gone"
 * also wait on; no store I/O ever happens under it. A held lock costs heap for as long as it is held, so this keeps
 * no more than it needs: the store's record of the grant (which an in-memory store shares), no latch.
 */
final class Acquisition {
    private enum State { ACQUIRING, HELD, ENDED }

    private final LockHandle handle;
    private final WeakReference<Thread> holder;
    private final String holderName;

    private State state = State.ACQUIRING;
    private boolean gone;
    private int holds;
    private LockRecord granted;
    private boolean lost;
    private boolean abortDelivered;
    /** Engine time of the grant, for how long it has been held. */
    private long grantedAtNanos;
    /** Engine time until which the store's lease is known to last. */
    private volatile long confirmedUntilNanos;

    Acquisition(LockHandle handle, Thread holder) {
        this.handle = handle;
        this.holder = new WeakReference<>(holder);
        this.holderName = holder.getName();
    }

    LockHandle handle() {
        return handle;
    }

    LockKey key() {
        return handle.key();
    }

    /** The holding thread, or {@code null} once it has been collected. */
    Thread holder() {
        return holder.get();
    }

    String holderName() {
        return holderName;
    }

    boolean isHeldBy(Thread thread) {
        return holder.get() == thread;
    }

    boolean isHolderAlive() {
        Thread t = holder.get();
        return t != null && t.isAlive();
    }

    /** The store granted the lock at {@code grantedAtNanos}: one hold, lease known until {@code confirmedUntilNanos}. */
    synchronized void grant(LockRecord record, long grantedAtNanos, long confirmedUntilNanos) {
        if (state != State.ACQUIRING) {
            throw new IllegalStateException("grant of " + this + " in state " + state);
        }
        state = State.HELD;
        holds = 1;
        granted = record;
        this.grantedAtNanos = grantedAtNanos;
        this.confirmedUntilNanos = confirmedUntilNanos;
    }

    /** Adds a re-entrant hold; {@code false} if this acquisition has ended. */
    synchronized boolean addHold() {
        if (state != State.HELD) {
            return false;
        }
        holds++;
        return true;
    }

    /** Gives back one hold; {@code true} if it was the last and this acquisition has now ended. */
    synchronized boolean dropHold() {
        if (state != State.HELD) {
            return false;
        }
        if (--holds > 0) {
            return false;
        }
        endLocked();
        return true;
    }

    /** Ends this acquisition whatever its holds; {@code true} if this call ended it. */
    synchronized boolean end() {
        if (state == State.ENDED) {
            return false;
        }
        endLocked();
        return true;
    }

    /** Ends a held acquisition as lost; {@code true} if this call did it. */
    synchronized boolean loseIfHeld() {
        if (state != State.HELD) {
            return false;
        }
        lost = true;
        endLocked();
        return true;
    }

    private void endLocked() {
        state = State.ENDED;
    }

    /** The record is released or not ours, and the entry is out of the table: waiters may try again. */
    synchronized void markGone() {
        gone = true;
        notifyAll();
    }

    synchronized boolean isGone() {
        return gone;
    }

    /** {@code true} the first time an abort is delivered, so a holder is interrupted once per acquisition. */
    synchronized boolean takeAbortDelivery() {
        if (state != State.HELD || abortDelivered) {
            return false;
        }
        abortDelivered = true;
        return true;
    }

    synchronized boolean isHeld() {
        return state == State.HELD;
    }

    synchronized boolean isLost() {
        return lost;
    }

    synchronized int holds() {
        return holds;
    }

    /** The store's record of the grant; {@code null} before it. */
    synchronized LockRecord granted() {
        return granted;
    }

    synchronized long grantedAtNanos() {
        return grantedAtNanos;
    }

    long confirmedUntilNanos() {
        return confirmedUntilNanos;
    }

    /** Moves the known end of the lease forward, never back: answers may arrive out of order. */
    void confirmUntil(long nanos) {
        synchronized (this) {
            if (nanos - confirmedUntilNanos > 0) {
                confirmedUntilNanos = nanos;
            }
        }
    }

    synchronized boolean awaitGone(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (!gone) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, remaining);
        }
        return true;
    }

    @Override
    public String toString() {
        return "'" + handle.key().name() + "' (" + handle.key().level() + ") held by thread '" + holderName + "'";
    }
}
