package io.github.lockmanager.engine;

import io.github.lockmanager.Lock;
import io.github.lockmanager.LockResource;

import java.util.concurrent.atomic.AtomicBoolean;

/** One hold on one acquisition: closing it gives back exactly that hold, once. */
final class HoldResource implements LockResource {
    private final LockEngine engine;
    private final Acquisition acquisition;
    private final boolean newLock;
    private final AtomicBoolean closed = new AtomicBoolean();

    HoldResource(LockEngine engine, Acquisition acquisition, boolean newLock) {
        this.engine = engine;
        this.acquisition = acquisition;
        this.newLock = newLock;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            engine.dropHold(acquisition);
        }
    }

    @Override
    public boolean isClosed() {
        return closed.get();
    }

    @Override
    public Lock getLock() {
        return acquisition.granted().toLock();
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
        return acquisition.granted().fencingToken();
    }

    @Override
    public String toString() {
        return "LockResource[" + acquisition + (closed.get() ? ", closed" : "") + (isLost() ? ", lost" : "") + "]";
    }
}
