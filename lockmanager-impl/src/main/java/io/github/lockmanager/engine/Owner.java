package io.github.lockmanager.engine;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.LockHandle;

/**
 * Who asks for a lock on this node and holds it: the calling thread ({@link ThreadOwner#CALLING}), or a task
 * ({@link TaskOwner}). The acquirer takes every mode, key or path, for either the same way; what differs is asked here:
 * how its holds are told apart in the table, whether it re-enters a hold it has, and what its acquisition is.
 */
interface Owner {

    /** Where its non-exclusive holds sit in the table beside other owners': a thread's id, a task's own number. */
    long id();

    /** The holder's name, as the store keeps it and messages show it. */
    String name();

    /** Whether {@code held}, found in the table, is this owner's own hold, which a new request joins. */
    boolean holds(Acquisition held);

    /** A new acquisition of {@code handle} for this owner. */
    Acquisition acquisition(LockHandle handle, LockMode mode, int permits, LeasePolicy leases);
}
