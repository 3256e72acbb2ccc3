package io.github.lockmanager.engine;

import java.util.List;

/**
 * The admin view of one lock manager: registered over JMX when {@link LockManagerBuilder#registerMBean(boolean)}
 * asks for it, as {@code io.github.lockmanager:type=LockManager,client=<clientId>,node=<nodeId>}, and reachable
 * from code through {@link LockManagerBuilder#admin(io.github.lockmanager.LockManager)}. It shows what this node holds without a store call; a lock held
 * far longer than its work should take is the one to look at. Thread-safe; every answer is a snapshot.
 */
public interface LockManagerMXBean {
    String getNodeId();

    String getClientId();

    /** How many locks threads of this node hold now. */
    int getHeldLockCount();

    /** How many waits for a lock, of threads and of tasks, are under way on this node. */
    int getWaiterCount();

    /**
     * How many of this node's waits were ended as part of a deadlock across nodes (fair waits only: see
     * {@link io.github.lockmanager.LockSpec#fair(boolean)}).
     */
    long getDeadlocksEnded();

    /**
     * How many times this node listed the store to look for deadlocks: once an interval at most, and only while one of
     * its fair waits has waited an interval (see {@link io.github.lockmanager.LockSpec#fair(boolean)}).
     */
    long getDeadlockLooks();

    /** One row per lock this node holds (over JMX a {@code CompositeData[]}). */
    List<HeldLockInfo> getHeldLocks();

    /**
     * Asks the holder of {@code key} (at the manager's default level), wherever it is, to stop.
     *
     * @throws IllegalArgumentException if {@code key} is not a valid key
     * @throws IllegalStateException    if the store could not be asked, with the store's reason; over JMX this
     *                                  arrives wrapped as the JMX client library wraps runtime exceptions
     */
    void abort(String key);

    /**
     * Releases every live record of {@code key} (at the manager's default level), whoever holds it, as
     * {@link io.github.lockmanager.LockManager#forceRelease} does, logged with {@code requestedBy}.
     *
     * @return how many records were released
     * @throws IllegalArgumentException if {@code key} is not a valid key or {@code requestedBy} is blank
     * @throws IllegalStateException    if the store failed, with the store's reason
     */
    int forceRelease(String key, String requestedBy);
}
