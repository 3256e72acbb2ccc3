package io.github.lockmanager.engine;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A lock manager's {@link LockManagerMXBean}, and its registration with the platform MBean server. */
final class AdminBean implements LockManagerMXBean {
    private static final Logger log = LoggerFactory.getLogger(AdminBean.class);

    private final EngineSettings settings;
    private final AcquisitionTable table;
    /** Aborts go through the manager's API, which checks the key as for any caller. */
    private final LockManager manager;
    private final HeldTooLong heldTooLong;
    private final Waits waits;
    private final Deadlocks deadlocks;
    private volatile ObjectName registeredAs;

    AdminBean(EngineSettings settings, AcquisitionTable table, LockManager manager, HeldTooLong heldTooLong,
              Waits waits, Deadlocks deadlocks) {
        this.settings = settings;
        this.table = table;
        this.manager = manager;
        this.heldTooLong = heldTooLong;
        this.waits = waits;
        this.deadlocks = deadlocks;
    }

    @Override
    public int getWaiterCount() {
        return waits.waiting();
    }

    @Override
    public long getDeadlocksEnded() {
        return deadlocks.ended();
    }

    @Override
    public long getDeadlockLooks() {
        return deadlocks.looks();
    }

    static ObjectName name(String clientId, String nodeId) throws JMException {
        return new ObjectName("io.github.lockmanager:type=LockManager,client=" + ObjectName.quote(clientId)
                + ",node=" + ObjectName.quote(nodeId));
    }

    void register() {
        try {
            ObjectName name = name(getClientId(), getNodeId());
            ManagementFactory.getPlatformMBeanServer().registerMBean(this, name);
            registeredAs = name;
        } catch (JMException e) {
            log.warn("Could not register the JMX view of lock manager node '{}': {}; locks work without it",
                    getNodeId(), e.toString());
        }
    }

    void unregister() {
        ObjectName name = registeredAs;
        if (name == null) {
            return;
        }
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try {
            server.unregisterMBean(name);
        } catch (JMException e) {
            log.debug("JMX view of node '{}' was already gone: {}", getNodeId(), e.toString());
        }
        registeredAs = null;
    }

    @Override
    public String getNodeId() {
        return settings.nodeId();
    }

    @Override
    public String getClientId() {
        return settings.clientId();
    }

    @Override
    public int getHeldLockCount() {
        return table.held().size();
    }

    @Override
    public List<HeldLockInfo> getHeldLocks() {
        long now = settings.timeSource().nanoTime();
        List<Acquisition> held = table.held();
        List<HeldLockInfo> rows = new ArrayList<>(held.size());
        for (Acquisition acquisition : held) {
            rows.add(new HeldLockInfo(acquisition.key().level().name(), acquisition.key().name(),
                    acquisition.holderName(), acquisition.holds(),
                    TimeUnit.NANOSECONDS.toMillis(now - acquisition.grantedAtNanos()), acquisition.fencingToken(),
                    acquisition.mode().text(acquisition.permits()), heldTooLong.isHeldTooLong(acquisition, now)));
        }
        return rows;
    }

    @Override
    public void abort(String key) {
        try {
            manager.abort(key);
        } catch (LockManagerException e) {
            // the caller gets a JDK exception type without our exception as its cause, so that a remote JMX
            // console can show it without our classes; the cause with its stack goes to the log instead
            log.warn("Admin abort of lock '{}' asked on node '{}' failed; the holder was not asked to stop and the "
                    + "abort may be asked again", key, getNodeId(), e);
            throw new IllegalStateException("could not abort '" + key + "': " + e.getMessage());
        }
    }

    @Override
    public int forceRelease(String key, String requestedBy) {
        try {
            return manager.forceRelease(key, settings.defaultLevel(), requestedBy);
        } catch (LockManagerException e) {
            log.warn("Admin force-release of lock '{}' asked by '{}' on node '{}' failed; records released before the "
                    + "failure stay released, and it may be asked again", key, requestedBy, getNodeId(), e);
            throw new IllegalStateException("could not force-release '" + key + "': " + e.getMessage());
        }
    }
}
