package io.github.lockmanager;

import io.github.lockmanager.internal.Require;

import java.time.Duration;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * Who owns a {@link TaskLock} and how it is kept: the task's name, an optional "still
 * active" check and an optional listener. Immutable; each setting is checked where it is given.
 *
 * <pre>{@code
 * TaskOptions job = TaskOptions.named("nightly-export")
 *         .activeWhile(() -> !export.isDone())
 *         .listener(new TaskLockListener() {
 *             public void lost(Lock lock, LockLossReason reason) { export.cancel(); }
 *         });
 * }</pre>
 */
public final class TaskOptions {
    /** The longest task name: it is stored as the lock's holder, beside the node id. */
    public static final int MAX_NAME_LENGTH = 200;
    private static final TaskLockListener NO_LISTENER = new TaskLockListener() {
    };

    private final String name;
        private final BooleanSupplier active;
    private final TaskLockListener listener;

    private TaskOptions(String name, BooleanSupplier active, TaskLockListener listener) {
        this.name = name;
        this.active = active;
        this.listener = listener;
    }

    /**
     * Options for a task called {@code name}, no active check and no listener.
     *
     * @throws IllegalArgumentException if {@code name} is null, blank, longer than {@link #MAX_NAME_LENGTH}, or holds a
     *                                  control character or an unpaired surrogate (the rule of every id:
     *                                  {@link io.github.lockmanager.spi.LockKey#requireIdText})
     */
    public static TaskOptions named(String name) {
        Require.argument(name != null, "a task needs a name, was null");
        io.github.lockmanager.spi.LockKey.requireIdText("task name", name);
        Require.argument(name.length() <= MAX_NAME_LENGTH, "task name must be at most %s characters, was %s",
                MAX_NAME_LENGTH, name.length());
        return new TaskOptions(name, null, NO_LISTENER);
    }

    /**
     * A check the manager asks before each renewal (on its keeper thread) and when another task or thread of this node
     * asks for the key: once it answers {@code false}, the lock is released and the listener's
     * {@link TaskLockListener#released} is called (Alfresco's {@code isActive}). It must be fast and must not block;
     * one that throws counts as active, and the failure is logged.
     */
    public TaskOptions activeWhile(BooleanSupplier active) {
        return new TaskOptions(name, Require.notNull(active, "active check"), listener);
    }

    /** Who is told of aborts, losses and the release; see {@link TaskLockListener}. */
    public TaskOptions listener(TaskLockListener listener) {
        return new TaskOptions(name, active, Require.notNull(listener, "task lock listener"));
    }

    public String name() {
        return name;
    }

    /** The active check, or {@code null} if the task is active until its lock is released. */
    public BooleanSupplier active() {
        return active;
    }

    public TaskLockListener listener() {
        return listener;
    }

    @Override
    public String toString() {
        return "TaskOptions[" + name + (active != null ? ", active check" : "")
                + (listener != NO_LISTENER ? ", listener" : "") + "]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TaskOptions other && name.equals(other.name)
                && Objects.equals(active, other.active) && listener.equals(other.listener);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, active, listener);
    }
}
