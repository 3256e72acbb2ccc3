package io.github.lockmanager.spring.integration;

import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.utils.ClusterLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.Lock;

/**
 * Spring Integration's {@code LockRegistry} on a {@link LockManager}: every {@link #obtain} of a key answers one
 * {@link ClusterLock}, so that aggregators, {@code LockRegistryLeaderInitiator} and anything else written against
 * {@code LockRegistry} lock across the cluster in any of lockmanager's stores.
 *
 * <p>The locks follow {@link ClusterLock}: they belong to the thread that took them and count re-entries; the manager
 * renews their leases in the background (so there is nothing to renew by hand, and no {@code RenewableLockRegistry});
 * {@code unlock()} of a lock lost while held throws, telling the holder. Keys are Strings (the manager's key rules).
 *
 * <p>Thread-safe. The registry keeps one lock object per key obtained: {@link #expireUnusedOlderThan} forgets those
 * that no thread holds and nobody obtained for a while, as Spring's own registries do.
 */
public final class LockManagerLockRegistry implements ExpirableLockRegistry {
    private final LockManager manager;
    private final LockLevel level;
    private final ConcurrentMap<String, Entry> locks = new ConcurrentHashMap<>();

    /** Locks at the manager's default level; waiters poll a holder elsewhere up to the manager's wait poll interval. */
    public LockManagerLockRegistry(LockManager manager) {
        this(manager, Require.notNull(manager, "manager").getDefaultLevel());
    }

    /** Locks at {@code level}. */
    public LockManagerLockRegistry(LockManager manager, LockLevel level) {
        this.manager = Require.notNull(manager, "manager");
        this.level = Require.notNull(level, "level");
    }

    /**
     * The lock of {@code lockKey}, the same object for every call until it expires unused.
     *
     * @throws IllegalArgumentException if the key is not a String or not a valid lock key
     */
    @Override
    public Lock obtain(Object lockKey) {
        Require.notNull(lockKey, "lockKey");
        if (!(lockKey instanceof String key)) {
            throw new IllegalArgumentException("lock keys of this registry are Strings, was a "
                    + lockKey.getClass().getName() + ": " + lockKey);
        }
        Entry entry = locks.computeIfAbsent(key, k -> new Entry(ClusterLock.of(manager, k, level)));
        entry.lastObtained = System.nanoTime();
        return entry.lock;
    }

    /** Forgets the locks that no thread of this node holds and that were last obtained more than {@code age} ms ago. */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = System.nanoTime();
        long ageNanos = Duration.ofMillis(age).toNanos();
        locks.values().removeIf(entry -> !entry.lock.isHeld() && now - entry.lastObtained > ageNanos);
    }

    @Override
    public String toString() {
        return "LockManagerLockRegistry[node '" + manager.getNodeId() + "', " + level + ", " + locks.size() + " locks]";
    }

    private static final class Entry {
        final ClusterLock lock;
        volatile long lastObtained;

        Entry(ClusterLock lock) {
            this.lock = lock;
        }
    }
}
