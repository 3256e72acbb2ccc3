package io.github.lockmanager;

/**
 * A watch of who holds a key ({@link LockManager#watch}): its listener is told of each change until it is closed.
 * Thread rules: {@link #close()} may be called from any thread, the listener's own included, and is idempotent.
 */
public interface LockWatch extends AutoCloseable {

    /** Stops the watch: the listener is not told anything once a call under way has returned. Never throws. */
    @Override
    void close();
}
