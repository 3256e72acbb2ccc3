package io.github.lockmanager.engine;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;

import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What a fair wait or try needs: what it asks for (the key, for a path the whole path; its mode and permits), whose
 * holds its owner has (for deadlock detection), and its request in the store once it registered one ({@link Requests}).
 * Only fair waits have one, so an unfair waiter costs one null field.
 */
final class FairTurn {
    final LockKey key;
    final LockMode mode;
    final int permits;
    /** A path's separator, or 0 for a plain key. */
    final char separator;
    /** Which of the node's acquisitions are the waiting owner's. */
    final Predicate<Acquisition> owns;
    final String ownerName;
    /** The registered request, or {@code null} before one (or after it was withdrawn or lost). */
    volatile LockHandle request;
    /** When the store registered its request, once registered: what a path's ancestors' requests are held against. */
    volatile Instant since;
    /** When it registered, by {@link System#nanoTime()}: deadlock detection looks only at requests that waited. */
    volatile long registeredAtNanos;
    /**
     * The request that the line showed nothing before, once it did: it stays first, so its tries read the line no more
     * ({@link Requests#ahead}); a path's reads its ancestors' lines every time.
     */
    volatile LockHandle clearOf;
    /** Whether the last try was held back by an earlier request rather than refused by a holder. */
    volatile boolean behind;
    /**
     * When the lease of the request that held this one back last ends, in the store's time: a request of a node that
     * died holds the line no longer than that, so a waiter that only watches its line looks again then.
     */
    volatile Instant blockerExpires;
    /** The last pause of a wait held back while the key was free, for the next to double; 0 after another park. */
    long behindPauseNanos;
    /** Set by deadlock detection when this wait was chosen to end: its next try fails with that cycle. */
    volatile String deadlock;

    /**
     * The owner tokens of the requests before this one in its plain key's line that keep it back, as its last read of
     * the line found them, less those withdrawn since (told by {@link io.github.lockmanager.spi.LockStore#watchWithdrawals});
     * {@code null} before a read. No request can join the line before this one later, so when the last of them is
     * withdrawn it is first without another read. Guarded by this turn's monitor, held for no call.
     */
    private Set<String> blockers;
    /** The request {@link #blockers} were read for: a request registered again has another place in line. */
    private LockHandle blockersOf;
    /** The withdrawals told while the line was being read, {@code null} outside a read; guarded as {@link #blockers}. */
    private Set<String> heardDuringRead;

    /** Wakes the wait this turn is for, once it started: what deadlock detection calls. */
    volatile Runnable wake;

    FairTurn(LockKey key, LockMode mode, int permits, char separator, Predicate<Acquisition> owns, String ownerName) {
        this.key = key;
        this.mode = mode;
        this.permits = permits;
        this.separator = separator;
        this.owns = owns;
        this.ownerName = ownerName;
    }

    boolean isRegistered() {
        return request != null;
    }

    /** A read of the line begins: withdrawals told from now are kept for {@link #endRead}. */
    synchronized void beginRead() {
        heardDuringRead = new HashSet<>();
    }

    /**
     * The read found {@code keptBackBy} before the request {@code of}: those withdrawn while it ran are taken out.
     *
     * @return whether none is left: that request is first
     */
    synchronized boolean endRead(LockHandle of, Set<String> keptBackBy) {
        if (heardDuringRead != null) {
            keptBackBy.removeAll(heardDuringRead);
        }
        heardDuringRead = null;
        blockers = keptBackBy;
        blockersOf = of;
        return keptBackBy.isEmpty();
    }

    /** The read failed: what it was to find is not known, and a withdrawal makes the wait read again. */
    synchronized void readFailed() {
        heardDuringRead = null;
        blockers = null;
    }

    /** What a withdrawal from the line means to this turn's wait. */
    enum Withdrawal {
        /** The last request known to keep it back went: it is first now, with no read of the line. */
        FIRST,
        /** Nothing: a request after it, one that does not keep it back, or one the read under way will account for. */
        NOTHING,
        /** Not known: no read was noted for its request; it reads the line again. */
        READ_AGAIN
    }

    /** The request whose owner token is {@code ownerToken} was withdrawn from this turn's line. */
    synchronized Withdrawal withdrawn(String ownerToken) {
        if (heardDuringRead != null) {
            heardDuringRead.add(ownerToken);
            return Withdrawal.NOTHING;
        }
        LockHandle mine = request;
        if (blockers == null || mine == null || mine != blockersOf) {
            return Withdrawal.READ_AGAIN;
        }
        if (!blockers.remove(ownerToken)) {
            return Withdrawal.NOTHING;
        }
        if (!blockers.isEmpty()) {
            return Withdrawal.NOTHING;
        }
        clearOf = mine;
        return Withdrawal.FIRST;
    }
}
