package io.github.lockmanager.engine;

import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.LockStore;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lease policies of locks asked for with a lease of their own: made once per distinct lease, so that the locks
 * of one lease share a policy and renew in one group, and handed to the keeper, which runs often enough for the
 * shortest. At most {@value #CACHED} leases are kept: a caller that makes up a new lease for every call gets a new
 * policy each time rather than a map that grows without end.
 */
final class CallLeases {
    private static final int CACHED = 64;

    private final LeasePolicy defaults;
    private final LeaseKeeper keeper;
    private final LockStore store;
    private final ConcurrentHashMap<Duration, LeasePolicy> policies = new ConcurrentHashMap<>();

    CallLeases(LeasePolicy defaults, LeaseKeeper keeper, LockStore store) {
        this.defaults = defaults;
        this.keeper = keeper;
        this.store = store;
    }

    /**
     * Checks {@code lease} against the longest the store grants ({@link LockStore#longestLease()}).
     *
     * @throws IllegalArgumentException naming the store, whose description names the setting
     */
    static void checkStoreGrants(LockStore store, Duration lease) {
        Duration longest = store.longestLease();
        Require.argument(longest == null || lease.compareTo(longest) <= 0, "lease %s is longer than store %s grants "
                + "(%s): raise the store's setting, or ask for a shorter lease", lease, store, longest);
    }

    /**
     * The policy of {@code lease}, the manager's own when it is the default lease.
     *
     * @throws IllegalArgumentException if the lease is null, shorter than {@link LeasePolicy#SHORTEST}, longer than
     *                                  {@link LeasePolicy#LONGEST} or than the store grants
     */
    LeasePolicy of(Duration lease) {
        LeasePolicy.checkLease(lease);
        checkStoreGrants(store, lease);
        if (lease.equals(defaults.lease())) {
            return defaults;
        }
        LeasePolicy policy = policies.get(lease);
        if (policy == null) {
            policy = defaults.forLease(lease);
            if (policies.size() < CACHED) {
                LeasePolicy raced = policies.putIfAbsent(lease, policy);
                policy = raced != null ? raced : policy;
            }
        }
        keeper.adopt(policy);
        return policy;
    }
}
