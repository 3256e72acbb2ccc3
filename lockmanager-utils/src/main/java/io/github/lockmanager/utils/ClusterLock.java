package io.github.lockmanager.utils;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.LockKey;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A cluster-wide lock on one key as a {@link java.util.concurrent.locks.Lock}, so that code written against
 * {@code Lock} (or moving from Spring Integration's {@code LockRegistry} or Redisson's {@code RLock}) runs on a
 * {@link LockManager} unchanged.
 *
 * <p><b>Threads and re-entry</b> are the manager's: the lock belongs to the thread that took it; each successful
 * {@code lock}/{@code tryLock} adds one hold, and that same thread gives each back with {@link #unlock()}. The last
 * hold releases the key in the store. {@link #unlock()} from a thread that holds no hold of this instance throws
 * {@link IllegalMonitorStateException}, as {@link java.util.concurrent.locks.ReentrantLock} does, so use one instance
 * per key among the threads that share it (a {@code LockRegistry} hands out one).
 *
 * <p><b>Waiting.</b> {@link #lock()} and the timed {@link #tryLock(long, TimeUnit)} wait as
 * {@link LockManager#waitForLock(io.github.lockmanager.LockSpec, Duration)} does: a holder on this node wakes the waiter when it
 * lets go; one on another node wakes it where the store announces releases, else it is polled up to the manager's
 * wait poll interval. {@link #lock()} cannot be interrupted, as the interface says: it keeps waiting and returns with
 * the thread's interrupt flag set. {@link #lockInterruptibly()} throws instead.
 *
 * <p><b>Failures.</b> A store failure is thrown as an {@link UncheckedLockException} (the interface allows no checked
 * exception); nothing is held then. A lock lost while held (its lease could not be renewed, another node forced it
 * free) is reported by {@link #unlock()}: the hold is given back and an {@link UncheckedLockException} whose cause is
 * a {@link LockLostException} is thrown, so that the holder learns that its work may have overlapped another's.
 * {@link #newCondition()} is not supported: no other node could signal it.
 */
public final class ClusterLock implements Lock {
    private static final Duration FOREVER = ChronoUnit.FOREVER.getDuration();

    private final LockManager manager;
    private final String key;
    private final LockLevel level;
    /** 0 for the key's exclusive lock, else the number of permits of which each holder takes one. */
    private final int permits;
    private final ThreadLocal<Deque<LockResource>> holds = new ThreadLocal<>();
    /**
     * The first hold of each thread that holds this lock: a thread that dies holding it leaves its hold here, and
     * {@link #isHeld()} forgets it then (the manager releases a dead thread's locks), where a count would stay up.
     */
    private final Set<LockResource> firstHolds = ConcurrentHashMap.newKeySet();

    private ClusterLock(LockManager manager, String key, LockLevel level, int permits) {
        this.manager = Require.notNull(manager, "manager");
        this.key = LockKey.requireName(key);
        this.level = Require.notNull(level, "level");
        this.permits = permits;
    }

    /**
     * The lock on {@code key} at the manager's default level.
     *
     * @throws IllegalArgumentException if the key is not a valid lock key
     */
    public static ClusterLock of(LockManager manager, String key) {
        Require.notNull(manager, "manager");
        return new ClusterLock(manager, key, manager.getDefaultLevel(), 0);
    }

    /**
     * The lock on {@code key} at {@code level}.
     *
     * @throws IllegalArgumentException if the key is not a valid lock key
     */
    public static ClusterLock of(LockManager manager, String key, LockLevel level) {
        return new ClusterLock(manager, key, level, 0);
    }

    /**
     * One of {@code permits} permits of {@code key} at {@code level} ({@link io.github.lockmanager.LockSpec#permits}): as many threads,
     * on any nodes, hold it at once, each its own permit, taken and given back as this class says of the lock.
     *
     * @throws IllegalArgumentException if the key is not a valid lock key, or {@code permits} is not from 1 to
     *                                  {@value LockManager#MAX_PERMITS}
     */
    public static ClusterLock permit(LockManager manager, String key, int permits, LockLevel level) {
        Require.permits(io.github.lockmanager.LockMode.PERMIT, permits, "lock '" + key + "'");
        return new ClusterLock(manager, key, level, permits);
    }

    private LockResource await(Duration maxWait) throws LockException, InterruptedException {
        return permits > 0 ? manager.waitForLock(LockSpec.permits(key, permits).at(level), maxWait)
                : manager.waitForLock(LockSpec.of(key).at(level), maxWait);
    }

    /** Waits until the calling thread holds the lock; see the class comment for interrupts and failures. */
    @Override
    public void lock() {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    push(await(FOREVER));
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (LockException e) {
                    throw new UncheckedLockException(e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        try {
            push(await(FOREVER));
        } catch (LockException e) {
            throw new UncheckedLockException(e);
        }
    }

    /** Takes the lock if nobody holds it now; one store call, no wait. */
    @Override
    public boolean tryLock() {
        try {
            push(permits > 0 ? manager.lock(LockSpec.permits(key, permits).at(level)) : manager.lock(key, level));
            return true;
        } catch (AlreadyLockedException e) {
            return false;
        } catch (LockException e) {
            throw new UncheckedLockException(e);
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        Require.notNull(unit, "unit");
        if (time <= 0) {
            return tryLock();
        }
        try {
            push(await(Duration.ofNanos(unit.toNanos(time))));
            return true;
        } catch (AlreadyLockedException e) {
            return false;
        } catch (LockException e) {
            throw new UncheckedLockException(e);
        }
    }

    /**
     * Gives back one hold of the calling thread; the last one releases the key in the store.
     *
     * @throws IllegalMonitorStateException if the calling thread holds no hold of this lock
     * @throws UncheckedLockException       caused by a {@link LockLostException} if the lock had been lost meanwhile
     *                                      (the hold is given back all the same)
     */
    @Override
    public void unlock() {
        Deque<LockResource> mine = holds.get();
        if (mine == null || mine.isEmpty()) {
            throw new IllegalMonitorStateException("thread '" + Thread.currentThread().getName()
                    + "' does not hold the lock '" + key + "' (" + level + ")");
        }
        LockResource hold = mine.pop();
        if (mine.isEmpty()) {
            holds.remove();
            firstHolds.remove(hold);
        }
        hold.close();
        if (hold.isLost()) {
            throw new UncheckedLockException(new LockLostException("the lock '" + key + "' (" + level + ") was lost "
                    + "while thread '" + Thread.currentThread().getName() + "' held it: another holder may have "
                    + "worked at the same time"));
        }
    }

    /** Not supported: a condition of a cluster-wide lock could not be signalled from another node. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("a cluster-wide lock has no conditions: no other node could signal "
                + "one; wait for the state itself (in the store, a queue) instead");
    }

    /** Whether the calling thread holds this lock. */
    public boolean isHeldByCurrentThread() {
        Deque<LockResource> mine = holds.get();
        return mine != null && !mine.isEmpty();
    }

    /** Whether any live thread of this node holds this lock through this instance. */
    public boolean isHeld() {
        firstHolds.removeIf(hold -> !hold.getHolder().isAlive());
        return !firstHolds.isEmpty();
    }

    public String getKey() {
        return key;
    }

    public LockLevel getLevel() {
        return level;
    }

    private void push(LockResource hold) {
        Deque<LockResource> mine = holds.get();
        if (mine == null) {
            mine = new ArrayDeque<>();
            holds.set(mine);
            firstHolds.add(hold);
        }
        mine.push(hold);
    }

    @Override
    public String toString() {
        return "ClusterLock['" + key + "' (" + level + ") of node '" + manager.getNodeId() + "']";
    }
}
