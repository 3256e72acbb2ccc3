package io.github.lockmanager.engine;

import io.github.lockmanager.Lock;
import io.github.lockmanager.LockResource;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** One hold on one acquisition: closing it gives back exactly that hold, once. */
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
        return acquisition.isLost();
    }

    @Override
    public long getFencingToken() {
        return acquisition.fencingToken();
    }

    @Override
    public String toString() {
        return "LockResource[" + acquisition + (closed ? ", closed" : "") + (isLost() ? ", lost" : "") + "]";
    }
}
