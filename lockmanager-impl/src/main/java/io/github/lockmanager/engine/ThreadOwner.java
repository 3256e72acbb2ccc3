package io.github.lockmanager.engine;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.LockHandle;

/**
 * The thread that calls the manager now, as the owner of what it asks for: a thread lock is always taken by its own
 * thread, so one constant stands for every thread, and taking a lock allocates no owner object.
 */
final class ThreadOwner implements Owner {
    static final Owner CALLING = new ThreadOwner();

    private ThreadOwner() {
    }

    @Override
    public long id() {
        return Thread.currentThread().getId();
    }

    @Override
    public String name() {
        return Thread.currentThread().getName();
    }

    @Override
    public boolean holds(Acquisition held) {
        return held.isHeldBy(Thread.currentThread());
    }

    @Override
    public Acquisition acquisition(LockHandle handle, LockMode mode, int permits, LeasePolicy leases) {
        Thread me = Thread.currentThread();
        return mode == LockMode.EXCLUSIVE ? new Acquisition(handle, me, leases)
                : new ModeAcquisition(handle, me, mode, permits, leases);
    }

    @Override
    public String toString() {
        return "thread '" + name() + "'";
    }
}
