package io.github.lockmanager;

import io.github.lockmanager.internal.Require;

import java.time.Duration;

/**
 * The key is held by another thread of this node or by another node. Nothing was changed; the caller may
 * try again later, or wait for it with {@link LockManager#waitForLock(LockSpec, Duration)}.
 */
public class AlreadyLockedException extends LockException {
    private static final long serialVersionUID = 1L;

    private final String key;
    private final String holderNodeId;
    private final String holderThreadName;
    private final boolean heldOnThisNode;

    /**
     * @param key              the key asked for
     * @param holderNodeId     the node holding it, or {@code null} when the store could not say
     * @param holderThreadName the holding thread's name, or {@code null} when the store could not say
     * @param heldOnThisNode   whether a thread of the node that threw this holds the key
     */
    public AlreadyLockedException(String key, String holderNodeId, String holderThreadName, boolean heldOnThisNode) {
        super("Lock '" + key + "' is already held"
                + (holderNodeId == null ? "" : " by thread '" + holderThreadName + "' on node '" + holderNodeId + "'")
                + (heldOnThisNode ? " (this node)" : ""));
        this.key = key;
        this.holderNodeId = holderNodeId;
        this.holderThreadName = holderThreadName;
        this.heldOnThisNode = heldOnThisNode;
    }

    /**
     * A wait for the key that ended without it: the message says how long it waited, then what {@code last}, the
     * wait's last refusal, said; the holder is {@code last}'s, and {@code last} is the cause.
     *
     * @throws IllegalArgumentException if {@code last} or {@code waited} is null
     */
    public AlreadyLockedException(AlreadyLockedException last, Duration waited) {
        super("Waited " + Require.notNull(waited, "waited").toMillis() + " ms for lock '"
                + Require.notNull(last, "last").key + "' without getting it: " + last.getMessage(), last);
        this.key = last.key;
        this.holderNodeId = last.holderNodeId;
        this.holderThreadName = last.holderThreadName;
        this.heldOnThisNode = last.heldOnThisNode;
    }

    public String getKey() {
        return key;
    }

    /** The node holding the key, or {@code null} when it was not known when the lock was refused. */
    public String getHolderNodeId() {
        return holderNodeId;
    }

    /** The holding thread's name, or {@code null} when it was not known when the lock was refused. */
    public String getHolderThreadName() {
        return holderThreadName;
    }

    /**
     * Whether a thread of the refusing node holds the key: a waiter of that node is then woken by its release
     * instead of polling.
     */
    public boolean isHeldOnThisNode() {
        return heldOnThisNode;
    }
}
