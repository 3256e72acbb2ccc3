package io.github.lockmanager;

/** The state of a live lock. */
public enum LockStatus {
    /** Held, and nobody asked the holder to stop. */
    RUNNING,
    /** Held, and some node asked the holder to stop through {@link LockManager#abort(String)}. */
    ABORT
}
