package io.github.lockmanager.spring.boot;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.engine.LockManagerMXBean;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * The lock manager's health: DOWN when its store does not answer or the last renewal batch failed (the locks held
 * here may then be lost when their leases end; the manager keeps retrying and tells each holder that loses its lock).
 * Details: node, locks held here, the last renewal. Put it in a readiness group rather than liveness: a restart
 * would give up every lock this node holds.
 */
public class LockManagerHealthIndicator extends AbstractHealthIndicator {
    /** A key no one locks: asking the store whether it is locked proves the store answers. */
    static final String PROBE_KEY = "lockmanager.health-probe";

    private final LockManager manager;
    /** {@code null} for a manager not built by {@link LockManagerBuilder}: its held-lock count is not shown. */
    private final LockManagerMXBean admin;
    private final RenewalRecord renewals;

    public LockManagerHealthIndicator(LockManager manager, RenewalRecord renewals) {
        super("Lock manager health check failed");
        this.manager = manager;
        this.admin = adminOf(manager);
        this.renewals = renewals;
    }

    private static LockManagerMXBean adminOf(LockManager manager) {
        try {
            return LockManagerBuilder.admin(manager);
        } catch (IllegalArgumentException notBuiltByTheBuilder) {
            return null;
        }
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        builder.withDetail("node", manager.getNodeId());
        if (admin != null) {
            builder.withDetail("heldLocks", admin.getHeldLockCount());
        }
        RenewalRecord.Outcome last = renewals.last();
        if (last != null) {
            builder.withDetail("lastRenewal", last.at().toString());
            builder.withDetail("lastRenewalLocks", last.locks());
        }
        manager.isLocked(PROBE_KEY);
        if (last != null && last.failure() != null) {
            builder.down().withDetail("lastRenewalFailure", String.valueOf(last.failure().getMessage()));
            return;
        }
        builder.up();
    }
}
