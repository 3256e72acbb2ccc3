package io.github.lockmanager.spring.boot;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.engine.LockManagerBuilder;
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
    private final RenewalRecord renewals;

    public LockManagerHealthIndicator(LockManager manager, RenewalRecord renewals) {
        super("Lock manager health check failed");
        this.manager = manager;
        this.renewals = renewals;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        builder.withDetail("node", manager.getNodeId());
        builder.withDetail("heldLocks", LockManagerBuilder.admin(manager).getHeldLockCount());
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
