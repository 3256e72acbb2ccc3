package io.github.lockmanager.engine;

/**
 * The admin view of one lock manager over JMX, registered when {@link LockManagerBuilder#registerMBean(boolean)}
 * asks for it as {@code io.github.lockmanager:type=LockManager,client=<clientId>,node=<nodeId>}. It shows what this
 * node holds without a store call; a lock held far longer than its work should take is the one to look at.
 */
public interface LockManagerMXBean {
    String getNodeId();

    String getClientId();

    /** How many locks threads of this node hold now. */
    int getHeldLockCount();

    /**
     * One line per lock this node holds: level, key, holding thread, holds, how long it has been held (by the
     * manager's clock) and its fencing token.
     */
    String[] getHeldLocks();

    /** Asks the holder of {@code key} (at the manager's default level), wherever it is, to stop. */
    void abort(String key) throws Exception;
}
