package io.github.lockmanager.engine;

import java.util.concurrent.atomic.AtomicReference;

/** Whether a manager takes locks: open, closing (holders are being stopped) or closed. */
final class Lifecycle {
    private enum State { OPEN, CLOSING, CLOSED }

    private final String nodeId;
    private final AtomicReference<State> state = new AtomicReference<>(State.OPEN);

    Lifecycle(String nodeId) {
        this.nodeId = nodeId;
    }

    boolean isOpen() {
        return state.get() == State.OPEN;
    }

    /** New locks are taken only while open. */
    void requireOpen() {
        if (!isOpen()) {
            throw closedException();
        }
    }

    /** Unlocking and queries still work while closing, so that holders can finish. */
    void requireNotClosed() {
        if (state.get() == State.CLOSED) {
            throw closedException();
        }
    }

    /** {@code true} for the one caller that moves an open manager to closing. */
    boolean beginClose() {
        return state.compareAndSet(State.OPEN, State.CLOSING);
    }

    void closed() {
        state.set(State.CLOSED);
    }

    IllegalStateException closedException() {
        return new IllegalStateException("lock manager of node '" + nodeId + "' is "
                + (state.get() == State.CLOSED ? "closed" : "closing") + "; build a new one to take locks");
    }

    @Override
    public String toString() {
        return state.get().name();
    }
}
