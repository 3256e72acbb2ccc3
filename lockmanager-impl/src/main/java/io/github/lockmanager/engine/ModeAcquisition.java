package io.github.lockmanager.engine;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.LockHandle;

/**
 * An acquisition in a mode other than exclusive: shared, or an intention on an ancestor. Many threads of this node
 * may hold one key so, each with its own acquisition; the table finds each by key, thread and mode, and keeps the
 * thread's id here because the thread itself may be collected before the acquisition leaves the table. Exclusive
 * acquisitions, the common case, do not pay for these two fields.
 */
final class ModeAcquisition extends Acquisition {
    private final LockMode mode;
    private final long holderId;

    ModeAcquisition(LockHandle handle, Thread holder, LockMode mode) {
        super(handle, holder);
        this.mode = mode;
        this.holderId = holder.getId();
    }

    @Override
    LockMode mode() {
        return mode;
    }

    long holderId() {
        return holderId;
    }
}
