package io.github.lockmanager;

import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.LockKey;

import java.time.Duration;
import java.util.Objects;

/**
 * What to lock and how: a key (or a hierarchical path), its mode ({@link LockMode#EXCLUSIVE} unless said otherwise,
 * {@link LockMode#SHARED}, or one of a number of permits), its level and its lease. Every verb of the
 * {@link LockManager} takes one: {@link LockManager#lock(LockSpec) lock} now, {@link LockManager#waitForLock wait},
 * {@link LockManager#lockForTask lock for a task}. Immutable and thread-safe; each setting is checked where it is
 * given, so a spec that exists is valid, and may be kept in a constant and used by any number of threads.
 *
 * <pre>{@code
 * LockSpec report = LockSpec.shared("report-7").at(LockLevel.XDC).lease(Duration.ofMinutes(5));
 * try (LockResource held = manager.waitForLock(report, Duration.ofSeconds(10))) { ... }
 * }</pre>
 *
 * <p><b>Modes.</b> {@link #of} is exclusive: one holder. {@link #shared} lets any number of shared holders in and
 * keeps exclusive ones out. {@link #permits} lets at most that many holders in at once, each with its own lease and
 * fencing token; every holder of a key must ask for the same number. {@link #path} takes the resource at the end of a
 * hierarchical path and an intention on each ancestor (see {@link LockManager#lock(LockSpec)}).
 */
public final class LockSpec {
    /** The shortest lease a spec takes: renewing more often than this is a store load, not a lock. */
    public static final Duration SHORTEST_LEASE = Duration.ofMillis(100);
    /** The longest lease a spec takes: a crashed holder keeps the key this long at most. */
    public static final Duration LONGEST_LEASE = Duration.ofDays(1);

    private final String key;
    private final LockMode mode;
    private final int permits;
    private final boolean path;
    private final LockLevel level;
    private final Duration lease;
    private final Boolean fair;

    private LockSpec(String key, LockMode mode, int permits, boolean path, LockLevel level, Duration lease) {
        this(key, mode, permits, path, level, lease, null);
    }

    private LockSpec(String key, LockMode mode, int permits, boolean path, LockLevel level, Duration lease,
                     Boolean fair) {
        this.key = key;
        this.mode = mode;
        this.permits = permits;
        this.path = path;
        this.level = level;
        this.lease = lease;
        this.fair = fair;
    }

    /**
     * {@code key} exclusively, at the manager's default level, with its lease.
     *
     * @throws IllegalArgumentException if the key is null, empty, longer than
     *                                  {@value LockManager#LOCK_KEY_MAX_LENGTH} chars or not storable text
     */
    public static LockSpec of(String key) {
        return new LockSpec(LockKey.requireName(key), LockMode.EXCLUSIVE, 0, false, null, null);
    }

    /**
     * {@code key} {@link LockMode#SHARED shared}: any number of shared holders, on any nodes, at once; an exclusive
     * holder excludes them all, and they exclude it.
     *
     * @throws IllegalArgumentException if the key is invalid, as {@link #of} says
     */
    public static LockSpec shared(String key) {
        return new LockSpec(LockKey.requireName(key), LockMode.SHARED, 0, false, null, null);
    }

    /**
     * One of {@code permits} permits of {@code key} ({@link LockMode#PERMIT}): at most that many holders at once.
     * Permits share a key with permits only.
     *
     * @param permits from 1 to {@value LockManager#MAX_PERMITS}
     * @throws IllegalArgumentException if the key is invalid or {@code permits} is out of range
     */
    public static LockSpec permits(String key, int permits) {
        LockKey.requireName(key);
        Require.permits(LockMode.PERMIT, permits, "lock '" + key + "'");
        return new LockSpec(key, LockMode.PERMIT, permits, false, null, null);
    }

    /**
     * The resource at the end of the hierarchical {@code path}, in {@code mode}: the path is split at the manager's
     * separator ({@code '/'} unless configured otherwise), each ancestor taken top-down in {@code mode}'s
     * {@link LockMode#intention() intention}, then the resource itself.
     *
     * @param mode {@link LockMode#SHARED} or {@link LockMode#EXCLUSIVE}
     * @throws IllegalArgumentException if the path is invalid as a key, or {@code mode} is null, an intention mode or
     *                                  {@link LockMode#PERMIT}
     */
    public static LockSpec path(String path, LockMode mode) {
        LockKey.requireName(path);
        Require.notNull(mode, "lock mode");
        Require.argument(mode == LockMode.SHARED || mode == LockMode.EXCLUSIVE, "a path is locked SHARED or EXCLUSIVE, "
                + "not %s: intentions are what the manager takes on the ancestors, and permits go with plain keys", mode);
        return new LockSpec(path, mode, 0, true, null, null);
    }

    /** This spec at {@code level} rather than the manager's default one. */
    public LockSpec at(LockLevel level) {
        return new LockSpec(key, mode, permits, path, Require.notNull(level, "lock level"), lease, fair);
    }

    /**
     * This spec waited for in turn ({@code true}) or not, whatever the manager's default
     * ({@code LockManagerBuilder.fair}). A fair wait registers a request in the store (one call) when it is refused,
     * kept alive with the node's locks, visible to every node ({@link LockManager#getWaiters()}) and withdrawn when the
     * wait ends in any way; it takes the key only when no earlier request of the key (of a mode that conflicts with
     * its own; any earlier permit request) is still waiting, nor an earlier one on an ancestor of its path. A fair
     * {@link LockManager#lock(LockSpec) one-try lock} registers nothing, and is refused while such a request waits.
     * Costs: one store read before each fair try (one per step's ancestor for a path), one write to register and one
     * to withdraw. See docs/requests.md.
     */
    public LockSpec fair(boolean fair) {
        return new LockSpec(key, mode, permits, path, level, lease, fair);
    }

    /**
     * This spec with a lease of its own instead of the manager's: how long the key stays locked after its node stops
     * renewing it (crashed, paused, cut off). A shorter lease frees the key of a crashed node sooner and costs more
     * renewals. Locks of one lease are renewed together, one store call per batch, so each distinct lease in use
     * costs its own renewal calls; a re-entry keeps the lease of the lock it joins.
     *
     * @param lease from {@link #SHORTEST_LEASE} to {@link #LONGEST_LEASE}; the manager refuses one longer than its
     *              store grants
     * @throws IllegalArgumentException if {@code lease} is null or out of range
     */
    public LockSpec lease(Duration lease) {
        return new LockSpec(key, mode, permits, path, level, checkLease(lease), fair);
    }

    /**
     * Checks a lease against {@link #SHORTEST_LEASE} and {@link #LONGEST_LEASE}: the one rule of every lease.
     *
     * @return {@code lease}
     * @throws IllegalArgumentException if it is null or out of range
     */
    public static Duration checkLease(Duration lease) {
        Require.notNull(lease, "lease");
        Require.argument(lease.compareTo(SHORTEST_LEASE) >= 0, "lease must be at least %dms, was %s",
                SHORTEST_LEASE.toMillis(), lease);
        Require.argument(lease.compareTo(LONGEST_LEASE) <= 0, "lease must be at most %s, was %s", LONGEST_LEASE, lease);
        return lease;
    }

    /** The key, or the whole path of a {@link #path} spec. */
    public String key() {
        return key;
    }

    public LockMode mode() {
        return mode;
    }

    /** For {@link LockMode#PERMIT}, how many permits the key has; else 0. */
    public int permits() {
        return permits;
    }

    /** Whether {@link #key()} is a hierarchical path. */
    public boolean isPath() {
        return path;
    }

    /** The level given with {@link #at}, or {@code null} for the manager's default. */
    public LockLevel level() {
        return level;
    }

    /** The lease given with {@link #lease}, or {@code null} for the manager's. */
    public Duration lease() {
        return lease;
    }

    /** What {@link #fair(boolean)} set, or {@code null} for the manager's default. */
    public Boolean fair() {
        return fair;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LockSpec other && key.equals(other.key) && mode == other.mode && permits == other.permits
                && path == other.path && level == other.level && Objects.equals(lease, other.lease)
                && Objects.equals(fair, other.fair);
    }

    @Override
    public int hashCode() {
        return Objects.hash(key, mode, permits, path, level, lease, fair);
    }

    @Override
    public String toString() {
        return "LockSpec[" + (path ? "path " : "") + "'" + key + "' " + mode + (permits > 0 ? " of " + permits : "")
                + (level != null ? ", " + level : "") + (lease != null ? ", lease " + lease : "")
                + (fair != null ? (fair ? ", fair" : ", unfair") : "") + "]";
    }
}
