package io.github.lockmanager;

import io.github.lockmanager.internal.Require;

import java.time.Duration;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * Who owns a {@link TaskLock} and how it is kept: the task's name, an optional lease of its own, an optional "still
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
    private final Duration lease;
    private final BooleanSupplier active;
    private final TaskLockListener listener;

    private TaskOptions(String name, Duration lease, BooleanSupplier active, TaskLockListener listener) {
        this.name = name;
        this.lease = lease;
        this.active = active;
        this.listener = listener;
    }

    /**
     * Options for a task called {@code name}, with the manager's lease, no active check and no listener.
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
        return new TaskOptions(name, null, null, NO_LISTENER);
    }

    /**
     * A lease of its own for the task's lock, as {@link LockManager#lock(String, LockLevel, Duration)} takes; the
     * manager checks it when the lock is asked for.
     */
    public TaskOptions lease(Duration lease) {
        return new TaskOptions(name, Require.notNull(lease, "lease"), active, listener);
    }

    /**
     * A check the manager asks before each renewal (on its keeper thread) and when another task or thread of this node
     * asks for the key: once it answers {@code false}, the lock is released and the listener's
     * {@link TaskLockListener#released} is called (Alfresco's {@code isActive}). It must be fast and must not block;
     * one that throws counts as active, and the failure is logged.
     */
    public TaskOptions activeWhile(BooleanSupplier active) {
        return new TaskOptions(name, lease, Require.notNull(active, "active check"), listener);
    }

    /** Who is told of aborts, losses and the release; see {@link TaskLockListener}. */
    public TaskOptions listener(TaskLockListener listener) {
        return new TaskOptions(name, lease, active, Require.notNull(listener, "task lock listener"));
    }

    public String name() {
        return name;
    }

    /** The lease given with {@link #lease}, or {@code null} for the manager's. */
    public Duration lease() {
        return lease;
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
        return "TaskOptions[" + name + (lease != null ? ", lease " + lease : "") + (active != null ? ", active check" : "")
                + (listener != NO_LISTENER ? ", listener" : "") + "]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TaskOptions other && name.equals(other.name) && Objects.equals(lease, other.lease)
                && Objects.equals(active, other.active) && listener.equals(other.listener);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, lease, active, listener);
    }
}
