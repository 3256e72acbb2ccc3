package io.github.lockmanager.engine;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.LockHandle;

import java.util.List;

/**
 * An acquisition of a thread in a mode other than exclusive: shared, permits, or an intention on an ancestor (a
 * task's is a {@link TaskAcquisition}). Many threads of this node
 * may hold one key so, each with its own acquisition; the table finds each by its place (key, thread and mode), made
 * once here with the thread's id, since the thread itself may be collected before the acquisition leaves the table.
 * Exclusive acquisitions, the common case, do not pay for this field.
 */
final class ModeAcquisition extends Acquisition {
    /** The modes a thread may hold beside others; a constant because {@code values()} copies its array per call. */
    static final List<LockMode> MODES = List.of(LockMode.INTENT_SHARED, LockMode.INTENT_EXCLUSIVE, LockMode.SHARED,
            LockMode.PERMIT);

    private final Place place;
    /** For {@link LockMode#PERMIT}, the number of permits the key was asked for; else 0. */
    private final int permits;

    ModeAcquisition(LockHandle handle, Thread holder, LockMode mode, int permits, LeasePolicy leases) {
        super(handle, holder, leases);
        this.place = new Place(handle.key().level(), handle.key().name(), holder.getId(), mode);
        this.permits = permits;
    }

    @Override
    int permits() {
        return permits;
    }

    @Override
    LockMode mode() {
        return place.mode();
    }

    @Override
    Place place() {
        return place;
    }
}
