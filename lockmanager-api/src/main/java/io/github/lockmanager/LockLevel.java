package io.github.lockmanager;

/**
 * Where a lock key lives, and so which nodes contend for it.
 */
public enum LockLevel {
    /** One data centre (farm): only nodes with the same farm id contend. Stored as {@code DC#<farmId>#<clientId>#<key>}. */
    DC,
    /** Across data centres: every node with the same client id contends. Stored as {@code XDC#<clientId>#<key>}. */
    XDC
}
