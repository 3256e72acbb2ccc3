package io.github.lockmanager.leader;

import io.github.lockmanager.LockLostException;
import io.github.lockmanager.TaskLock;

import java.time.Duration;
import java.time.Instant;

/**
 * One member's leadership of a {@link LeaderElection}'s name, from its election to its revocation. Its
 * {@linkplain #number() number} is the fencing token of the lock that made it: a later term of the same name, on any
 * node, has a higher number, so a resource that keeps the highest number it has seen refuses a former leader's late
 * writes. Thread-safe.
 */
public final class Term {
    private final String name;
    private final String member;
    private final TaskLock lock;
    private final Instant since;
    private volatile boolean revoked;

    Term(String name, String member, TaskLock lock, Instant since) {
        this.name = name;
        this.member = member;
        this.lock = lock;
        this.since = since;
    }

    /** The term's number: the fencing token of its lock, higher than every earlier term's of the same name. */
    public long number() {
        return lock.getFencingToken();
    }

    /** The election's name. */
    public String name() {
        return name;
    }

    /** The member that leads in this term. */
    public String member() {
        return member;
    }

    /** When this member was elected, by this node's clock. */
    public Instant since() {
        return since;
    }

    /**
     * How much longer this term is known to last: the time left of its lease as the store last confirmed it (see
     * {@link io.github.lockmanager.LockResource#remainingLease()}); zero once it was revoked, lost or may be over.
     */
    public Duration remaining() {
        return revoked ? Duration.ZERO : lock.remainingLease();
    }

    /** Whether this term still holds: not revoked, and its lease not at risk by this node's clock. */
    public boolean isCurrent() {
        return !remaining().isZero();
    }

    /**
     * Refuses work that might not end within the term: call it before each step of a leader's work, with the time the
     * step may take. No store call.
     *
     * @throws LockLostException if less than {@code step} is left of the term (nothing, once it is over)
     */
    public void check(Duration step) throws LockLostException {
        Duration left = remaining();
        if (left.isZero() || left.compareTo(step) < 0) {
            throw new LockLostException("term " + number() + " of leadership '" + name + "' (member '" + member
                    + "') " + (left.isZero() ? "is over, or may be" : "has " + left.toMillis() + " ms left, less than "
                    + "the step's " + step.toMillis() + " ms") + ": the work must not run as its leader's");
        }
    }

    /** As {@link #check(Duration)} for a step that takes no time. */
    public void check() throws LockLostException {
        check(Duration.ZERO);
    }

    TaskLock lock() {
        return lock;
    }

    /** Marks the term over; {@code true} the first time, for the one revocation to deliver. */
    boolean revoke() {
        synchronized (this) {
            if (revoked) {
                return false;
            }
            revoked = true;
            return true;
        }
    }

    @Override
    public String toString() {
        return "term " + number() + " of '" + name + "' led by '" + member + "' since " + since;
    }
}
