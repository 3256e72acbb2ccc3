package io.github.lockmanager.admin;

import io.github.lockmanager.LockStatus;
import io.github.lockmanager.spi.LockRecord;

/**
 * Which locks an operator wants to see: keys starting with a prefix, held by one node, in one status. A part left
 * {@code null} matches every lock.
 *
 * @param keyPrefix the start of the key, as the application names it
 * @param node      the holding node's id, exactly
 * @param status    the lock's status
 */
public record LockFilter(String keyPrefix, String node, LockStatus status) {
    /** Every lock. */
    public static final LockFilter ALL = new LockFilter(null, null, null);

    public boolean matches(LockRecord record) {
        return (keyPrefix == null || record.key().name().startsWith(keyPrefix))
                && (node == null || record.nodeId().equals(node))
                && (status == null || record.status() == status);
    }
}
