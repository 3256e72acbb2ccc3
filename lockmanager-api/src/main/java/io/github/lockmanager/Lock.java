package io.github.lockmanager;

import io.github.lockmanager.internal.Require;
import java.time.Instant;
import java.util.Objects;

/**
 * An immutable snapshot of one live lock, as admin pages show it. Times come from the store's records:
 * how a store measures them (its own clock, the database's, the server's) is the store's documented choice.
 */
public final class Lock {
    private final String key;
    private final LockLevel level;
    private final String ownerNodeId;
    private final String holderThreadName;
    private final Instant lockTime;
    private final Instant expirationTime;
    private final LockStatus status;
    private final long fencingToken;
    private final LockMode mode;
    private final int permits;

    public Lock(String key, LockLevel level, String ownerNodeId, String holderThreadName, Instant lockTime,
                Instant expirationTime, LockStatus status, long fencingToken) {
        this(key, level, ownerNodeId, holderThreadName, lockTime, expirationTime, status, fencingToken,
                LockMode.EXCLUSIVE);
    }

    public Lock(String key, LockLevel level, String ownerNodeId, String holderThreadName, Instant lockTime,
                Instant expirationTime, LockStatus status, long fencingToken, LockMode mode) {
        this(key, level, ownerNodeId, holderThreadName, lockTime, expirationTime, status, fencingToken, mode, 0);
    }

    /**
     * @param permits how many holders the key's permits admit, for {@link LockMode#PERMIT} (1 to
     *                {@link LockManager#MAX_PERMITS}); 0 for every other mode
     */
    public Lock(String key, LockLevel level, String ownerNodeId, String holderThreadName, Instant lockTime,
                Instant expirationTime, LockStatus status, long fencingToken, LockMode mode, int permits) {
        this.key = Require.notNull(key, "key");
        this.level = Require.notNull(level, "level");
        this.ownerNodeId = Require.notNull(ownerNodeId, "ownerNodeId");
        this.holderThreadName = Require.notNull(holderThreadName, "holderThreadName");
        this.lockTime = Require.notNull(lockTime, "lockTime");
        this.expirationTime = Require.notNull(expirationTime, "expirationTime");
        this.status = Require.notNull(status, "status");
        this.fencingToken = fencingToken;
        this.mode = Require.notNull(mode, "mode");
        this.permits = Require.permits(mode, permits, "lock '" + key + "'");
    }

    /** The key as the caller gave it, without level, farm or client prefix. */
    public String getKey() {
        return key;
    }

    public LockLevel getLevel() {
        return level;
    }

    /** The id of the node whose {@link LockManager} holds the lock. */
    public String getOwnerNodeId() {
        return ownerNodeId;
    }

    /** The name the holding thread had when it took the lock. */
    public String getHolderThreadName() {
        return holderThreadName;
    }

    /** When this acquisition was made; re-entries do not change it. */
    public Instant getLockTime() {
        return lockTime;
    }

    /** When the lease runs out unless the holder's node renews it. */
    public Instant getExpirationTime() {
        return expirationTime;
    }

    public LockStatus getStatus() {
        return status;
    }

    /**
     * A number that is strictly greater than every fencing token the store issued for this key before.
     * Pass it to the resource the lock protects so that the resource can refuse a paused, former holder.
     */
    public long getFencingToken() {
        return fencingToken;
    }

    /** How this holder holds the key; a shared key shows one {@code Lock} per holder. */
    public LockMode getMode() {
        return mode;
    }

    /** For a {@link LockMode#PERMIT} holder, how many holders the key admits at once; 0 in every other mode. */
    public int getPermits() {
        return permits;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Lock)) {
            return false;
        }
        Lock other = (Lock) o;
        return fencingToken == other.fencingToken && key.equals(other.key) && level == other.level
                && ownerNodeId.equals(other.ownerNodeId) && holderThreadName.equals(other.holderThreadName)
                && lockTime.equals(other.lockTime) && expirationTime.equals(other.expirationTime)
                && status == other.status && mode == other.mode && permits == other.permits;
    }

    @Override
    public int hashCode() {
        return Objects.hash(key, level, ownerNodeId, holderThreadName, lockTime, expirationTime, status, fencingToken,
                mode, permits);
    }

    @Override
    public String toString() {
        return "Lock{key='" + key + "', level=" + level + ", node='" + ownerNodeId + "', thread='" + holderThreadName
                + "', locked=" + lockTime + ", expires=" + expirationTime + ", status=" + status
                + ", token=" + fencingToken + ", mode=" + mode
                + (mode == LockMode.PERMIT ? ", permits=" + permits : "") + '}';
    }
}
