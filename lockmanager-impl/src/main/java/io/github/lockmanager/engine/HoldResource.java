package io.github.lockmanager.engine;

import io.github.lockmanager.GuardedHold;
import io.github.lockmanager.Lock;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.LockHandle;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;

/**
 * One hold on one acquisition: closing it gives back exactly that hold, once; or the guarded work it is lent to
 * gives it back ({@link Guard}).
 */
final class HoldResource implements LockResource {
    private static final VarHandle CLOSED;

    static {
        try {
            CLOSED = MethodHandles.lookup().findVarHandle(HoldResource.class, "closed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Releaser releaser;
    private final Acquisition acquisition;
    private final boolean newLock;
    /** A field rather than an AtomicBoolean: one object per hold instead of two. */
    private volatile boolean closed;

    HoldResource(Releaser releaser, Acquisition acquisition, boolean newLock) {
        this.releaser = releaser;
        this.acquisition = acquisition;
        this.newLock = newLock;
    }

    @Override
    public void close() {
        if (CLOSED.compareAndSet(this, false, true)) {
            releaser.dropHold(acquisition);
        }
    }

    @Override
    public void closeHeldAtLeast(Duration atLeast) {
        Require.notNull(atLeast, "atLeast");
        Require.argument(!atLeast.isNegative() && atLeast.compareTo(MAX_HOLD_AT_LEAST) <= 0,
                "atLeast must be between 0 and %s, was %s", MAX_HOLD_AT_LEAST, atLeast);
        if (CLOSED.compareAndSet(this, false, true)) {
            releaser.dropHoldKeeping(acquisition, atLeast);
        }
    }

    @Override
    public Duration remainingLease() {
        return closed ? Duration.ZERO : releaser.remainingLease(acquisition);
    }

    @Override
    public GuardedHold guard() throws LockLostException {
        if (closed) {
            throw new IllegalStateException("cannot guard work with " + this + ": it is closed");
        }
        releaser.lend(acquisition);
        return new Guard();
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public Lock getLock() {
        return acquisition.grantedLock(releaser.nodeId());
    }

    @Override
    public boolean isNewLock() {
        return newLock;
    }

    @Override
    public Thread getHolder() {
        return acquisition.holder();
    }

    @Override
    public boolean isLost() {
        return releaser.isLost(acquisition);
    }

    @Override
    public long getFencingToken() {
        return acquisition.fencingToken();
    }

    /** Says what is known: unlike {@link #isLost()}, it never declares a loss, so logging a hold changes nothing. */
    @Override
    public String toString() {
        return "LockResource[" + acquisition + (closed ? ", closed" : "") + (acquisition.isLost() ? ", lost" : "") + "]";
    }

    /**
     * This hold lent to guarded work: while open, renewal leaves the acquisition alone; {@link #release} settles the
     * hold by the work's outcome. Belongs to the work's thread.
     */
    private final class Guard implements GuardedHold {
        private boolean ended;

        @Override
        public LockHandle handle() {
            return acquisition.handle();
        }

        @Override
        public <X extends Exception> void release(Finish<X> finish, boolean keepOnFailure) throws X, LockLostException {
            if (ended) {
                throw new IllegalStateException("guard of " + acquisition + " is closed");
            }
            try {
                if (!CLOSED.compareAndSet(HoldResource.this, false, true)) {
                    throw new LockLostException("the hold on lock " + acquisition + " was given back before its guarded "
                            + "work ended");
                }
                int holds = acquisition.beginRelease();
                if (holds == 0) {
                    throw new LockLostException("lock " + acquisition + " on node '" + releaser.nodeId() + "' ended "
                            + "before its guarded work did (" + (acquisition.isLost() ? "lost" : "released") + ")");
                }
                boolean last = holds == 1;
                try {
                    finish.run(acquisition.handle(), last);
                } catch (Throwable t) {
                    settleFailure(last, keepOnFailure);
                    throw t;
                }
                if (last && acquisition.finishRelease()) {
                    releaser.releasedByWork(acquisition);
                }
            } finally {
                close();
            }
        }

        /** The work failed: the hold is kept as it was, or given back with the record released by the manager. */
        private void settleFailure(boolean last, boolean keep) {
            if (keep) {
                boolean restored = last ? acquisition.restoreHold() : acquisition.addHold();
                if (restored) {
                    closed = false;
                }
            } else if (last && acquisition.finishRelease()) {
                releaser.release(acquisition, acquisition.confirmedUntilNanos());
            }
        }

        @Override
        public void close() {
            if (!ended) {
                ended = true;
                releaser.endLoan(acquisition);
            }
        }

        @Override
        public String toString() {
            return "GuardedHold[" + acquisition + (ended ? ", ended" : "") + "]";
        }
    }
}
