package io.github.lockmanager.engine;

import io.github.lockmanager.Lock;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockLevel;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.TaskLock;
import io.github.lockmanager.TaskOptions;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.LockKey;



import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lock manager's facade: a local table of this node's acquisitions in front of a store. Re-entry and
 * contention between threads of this node are answered from the table; the store is asked only to take,
 * release, renew and inspect records. The parts below it, made and stopped by {@link EngineParts}, never call back
 * into it: {@link Acquirer} takes new locks, {@link Releaser} gives them back, {@link Delivery} tells holders of
 * aborts and losses, and {@link LeaseKeeper} runs renewal and the watchdog in the background.
 */
final class LockEngine implements LockManager {
    private static final Logger log = LoggerFactory.getLogger(LockEngine.class);

    private final EngineSettings settings;
    private final EngineParts parts;
    private final AcquisitionTable table;
    /**
     * The table's maps of exclusive acquisitions by key, held here too: a re-entry and its unlock each look a key up,
     * and a map read from a field of this object is one dependent load less on their path than one read through the
     * table, which JMH's re-entry figure shows. Only read here. {@code lock} and {@code unlock} each pick the map in
     * line, which measured faster than the same lookup through a private helper. The other parts are fields here too,
     * for the same reason.
     */
    private final ConcurrentHashMap<String, Acquisition> dcExclusive;
    private final ConcurrentHashMap<String, Acquisition> xdcExclusive;
    private final KeyScope keys;
    private final Lifecycle lifecycle;
    private final Releaser releaser;
    private final Acquirer acquirer;
    private final CallLeases callLeases;
    private final AdminBean adminBean;
    private final Operations operations;
    private final Waits waits;
    private final TaskThreads tasks;

    private LockEngine(EngineParts parts) {
        this.parts = parts;
        this.settings = parts.settings;
        this.table = parts.table;
        this.dcExclusive = table.exclusive(LockLevel.DC);
        this.xdcExclusive = table.exclusive(LockLevel.XDC);
        this.keys = parts.keys;
        this.lifecycle = parts.lifecycle;
        this.releaser = parts.releaser;
        this.acquirer = parts.acquirer;
        this.callLeases = parts.callLeases;
        this.waits = parts.waits;
        this.tasks = parts.tasks;
        this.adminBean = new AdminBean(settings, table, this, parts.heldTooLong);
        this.operations = new Operations(parts);
    }

    static LockEngine start(EngineSettings settings) {
        LockEngine engine = new LockEngine(new EngineParts(settings));
        engine.parts.start(engine.adminBean);
        return engine;
    }

    @Override
    public LockResource lock(String key) throws LockException {
        return lock(key, settings.defaultLevel());
    }

    @Override
    public LockResource lock(String key, LockLevel level) throws LockException {
        requireArguments(key, level);
        // a re-entry: a few lines here, so that it inlines into callers (the acquirer, which refuses new locks once
        // the manager closes, is not inlined)
        Acquisition mine = (level == LockLevel.DC ? dcExclusive : xdcExclusive).get(key);
        if (mine != null && mine.isHeldBy(Thread.currentThread()) && mine.addHold()) {
            return new HoldResource(releaser, mine, false);
        }
        return acquireNew(key, level);
    }

    /*
     * Out of lock's line, as unlockNotHeld is out of unlock's: C2 inlines a method it has already compiled only up
     * to 2,500 bytes of code (InlineSmallCode), and lock and unlock have measured close to that limit (2,272 and
     * 2,304 bytes on an AMD EPYC with the new-lock path out of line; 2,528 with it in line); over the limit, a caller
     * that C2 compiles later calls them instead. The owner, the calling thread, is read by the acquirer.
     */
    private LockResource acquireNew(String key, LockLevel level) throws LockException {
        return acquirer.acquire(key, level, settings.leases());
    }

    @Override
    public LockResource lock(LockSpec spec) throws LockException {
        return take(spec, ThreadOwner.CALLING);
    }

    /** Takes what {@code spec} says for {@code owner}: a key in its mode, or each step of a path. */
    private LockResource take(LockSpec spec, Owner owner) throws LockException {
        Require.notNull(spec, "lock spec");
        LockLevel level = levelOf(spec);
        LeasePolicy leases = spec.lease() != null ? callLeases.of(spec.lease()) : settings.leases();
        if (spec.isPath()) {
            return PathResource.take(acquirer, LockPaths.prefixes(spec.key(), settings.pathSeparator()), spec.mode(),
                    level, owner, leases);
        }
        return acquirer.acquire(spec.key(), level, spec.mode(), spec.permits(), owner, leases);
    }

    @Override
    public void unlock(String key) {
        unlock(key, settings.defaultLevel());
    }

    @Override
    public void unlock(String key, LockLevel level) {
        requireArguments(key, level);
        Acquisition acquisition = (level == LockLevel.DC ? dcExclusive : xdcExclusive).get(key);
        // one compare-and-set tells both whether it is held and gives the hold back
        if (acquisition != null && acquisition.isHeldBy(Thread.currentThread()) && releaser.dropHold(acquisition)) {
            return;
        }
        unlockNotHeld(key, level);
    }

    /**
     * An unlock by a thread that holds no exclusive lock of the key: Hippo's rule, which callers that unlock in a
     * {@code finally} block rely on, is a logged warning and nothing else (ClusterLock, a j.u.c. Lock, throws).
     */
    private void unlockNotHeld(String key, LockLevel level) {
        Thread me = Thread.currentThread();
        lifecycle.requireNotClosed();
        LockKey.requireName(key);
        LockMode heldIn = nonExclusiveHold(key, level, me);
        if (heldIn != null) {
            log.warn("Thread '{}' called unlock('{}') ({}) on node '{}' but holds that lock {}; unlock gives back "
                    + "exclusive holds only, so nothing was given back: close the LockResource that took it",
                    me.getName(), key, level, settings.nodeId(), heldIn);
        } else {
            log.warn("Thread '{}' called unlock('{}') ({}) on node '{}' without holding that lock (never taken, "
                    + "already given back, or taken by another thread): nothing was given back", me.getName(), key,
                    level, settings.nodeId());
        }
    }

    /** The mode of a non-exclusive hold of {@code key} by {@code thread}, if it has one. */
    private LockMode nonExclusiveHold(String key, LockLevel level, Thread thread) {
        for (LockMode mode : ModeAcquisition.MODES) {
            Acquisition held = table.get(level, key, thread, mode);
            if (held != null && held.isHeld()) {
                return mode;
            }
        }
        return null;
    }

    @Override
    public boolean isLocked(String key) throws LockManagerException {
        return isLocked(key, settings.defaultLevel());
    }

    @Override
    public boolean isLocked(String key, LockLevel level) throws LockManagerException {
        requireValidArguments(key, level);
        return operations.isLocked(key, level);
    }

    @Override
    public List<Lock> getLocks() throws LockManagerException {
        return operations.getLocks();
    }

    @Override
    public void abort(String key) throws LockManagerException {
        abort(key, settings.defaultLevel());
    }

    @Override
    public void abort(String key, LockLevel level) throws LockManagerException {
        requireValidArguments(key, level);
        operations.abort(key, level);
    }

    @Override
    public List<Lock> inspect(String key, LockLevel level) throws LockManagerException {
        requireValidArguments(key, level);
        return operations.inspect(key, level);
    }

    @Override
    public int forceRelease(String key, LockLevel level, String requestedBy) throws LockManagerException {
        requireValidArguments(key, level);
        return operations.forceRelease(key, level, requestedBy);
    }

    @Override
    public LockResource waitForLock(LockSpec spec, Duration maxWait) throws LockException, InterruptedException {
        Require.notNull(spec, "lock spec");
        return waits.await(() -> take(spec, ThreadOwner.CALLING), keys.storeKey(levelOf(spec), spec.key()), spec.mode(),
                maxWait);
    }

    @Override
    public TaskLock lockForTask(LockSpec spec, TaskOptions task) throws LockException {
        Require.notNull(spec, "lock spec");
        Require.notNull(task, "task options");
        return takeForTask(spec, task);
    }

    @Override
    public CompletionStage<TaskLock> lockForTaskAsync(LockSpec spec, Duration maxWait, TaskOptions task) {
        Require.notNull(spec, "lock spec");
        Require.notNull(task, "task options");
        long budget = Parking.budgetNanos(maxWait);
        lifecycle.requireOpen();
        return waits.start(() -> takeForTask(spec, task), keys.storeKey(levelOf(spec), spec.key()), spec.mode(),
                budget);
    }

    /** One try at {@code spec} for a new task owner: each call for a task is a lock of its own. */
    private TaskLock takeForTask(LockSpec spec, TaskOptions task) throws LockException {
        TaskOwner owner = new TaskOwner(task, settings.nodeId());
        return new TaskHold(take(spec, owner), owner, tasks);
    }

    private LockLevel levelOf(LockSpec spec) {
        return spec.level() != null ? spec.level() : settings.defaultLevel();
    }

    /** How many task waits are under way, for tests. */
    int taskWaits() {
        return waits.size();
    }

    /** This node's waiters, for the engine's tests that must stand where no public call stops. */
    WaitQueue waitQueue() {
        return parts.queue;
    }

    /** This node's acquisitions, for the engine's tests that must stand where no public call stops. */
    AcquisitionTable table() {
        return table;
    }

    LockManagerMXBean admin() {
        return adminBean;
    }

    @Override
    public LockLevel getDefaultLevel() {
        return settings.defaultLevel();
    }

    @Override
    public String getNodeId() {
        return settings.nodeId();
    }

    @Override
    public void close() {
        parts.stop(adminBean);
    }

    /**
     * The checks that cost nothing; the full scan of the key's characters ({@code KeyScope}) is left to the acquirer
     * for keys not in the table (a key in it was validated when first locked).
     */
    private static void requireArguments(String key, LockLevel level) {
        Require.notNull(key, "lock key");
        Require.notNull(level, "lock level");
    }

    private static void requireValidArguments(String key, LockLevel level) {
        requireArguments(key, level);
        LockKey.requireName(key);
    }

    @Override
    public String toString() {
        return "LockManager[node=" + settings.nodeId() + ", client=" + settings.clientId() + ", farm="
                + settings.farmId() + ", held=" + table.size() + ", " + lifecycle + "]";
    }
}
