package io.github.lockmanager.spi;

import io.github.lockmanager.Lock;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.internal.Require;

import java.time.Instant;

/**
 * A live lock as a store holds it.
 *
 * @param handle         the key and the owner token of the acquisition that holds it
 * @param nodeId         the holding node
 * @param threadName     the holding thread's name when it took the lock
 * @param lockTime       when it was acquired (the store's notion of time)
 * @param expirationTime when its lease ends unless renewed (the store's notion of time)
 * @param status         whether an abort was asked for
 * @param fencingToken   strictly greater than every token the store issued for this key before
 * @param mode           how this holder holds the key
 * @param permits        for {@link LockMode#PERMIT}, how many holders the key admits (as the holder asked); 0 in
 *                       every other mode
 */
public record LockRecord(LockHandle handle, String nodeId, String threadName, Instant lockTime,
                         Instant expirationTime, LockStatus status, long fencingToken, LockMode mode, int permits) {
    public LockRecord {
        Require.notNull(handle, "handle");
        Require.notNull(nodeId, "nodeId");
        Require.notNull(threadName, "threadName");
        Require.notNull(lockTime, "lockTime");
        Require.notNull(expirationTime, "expirationTime");
        Require.notNull(status, "status");
        Require.notNull(mode, "mode");
        Require.permits(mode, permits, "record " + handle);
    }

    /** The record of a holder in a mode other than {@link LockMode#PERMIT}. */
    public LockRecord(LockHandle handle, String nodeId, String threadName, Instant lockTime, Instant expirationTime,
                      LockStatus status, long fencingToken, LockMode mode) {
        this(handle, nodeId, threadName, lockTime, expirationTime, status, fencingToken, mode, 0);
    }

    /** The record of an {@link LockMode#EXCLUSIVE} holder. */
    public LockRecord(LockHandle handle, String nodeId, String threadName, Instant lockTime, Instant expirationTime,
                      LockStatus status, long fencingToken) {
        this(handle, nodeId, threadName, lockTime, expirationTime, status, fencingToken, LockMode.EXCLUSIVE);
    }

    public LockKey key() {
        return handle.key();
    }

    public String ownerToken() {
        return handle.ownerToken();
    }

    /** The public view of this record. */
    public Lock toLock() {
        LockKey key = handle.key();
        return new Lock(key.name(), key.level(), nodeId, threadName, lockTime, expirationTime, status, fencingToken,
                mode, permits);
    }
}
