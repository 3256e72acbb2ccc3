package io.github.lockmanager.engine;

import io.github.lockmanager.Lock;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockLevel;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.LockSet;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockWaiter;
import io.github.lockmanager.LockWatch;
import io.github.lockmanager.TaskLock;
import io.github.lockmanager.TaskOptions;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.LockKey;



import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

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
    private final Requests requests;
    private final HolderWatches watches;

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
        // a task wait keeps its spec and options, not a lambda of its own
        waits.takeTasksWith(this::takeForTask);
        this.tasks = parts.tasks;
        this.requests = parts.requests;
        this.adminBean = new AdminBean(settings, table, this, parts.heldTooLong, parts.waits, parts.deadlocks);
        this.operations = new Operations(parts);
        this.watches = new HolderWatches(parts.store, parts.tasks, operations::inspect);
        parts.onStop(watches::stop);
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
        return acquirer.acquire(key, level, settings.leases(),
                settings.fair() ? threadTurn(keys.storeKey(level, key), LockMode.EXCLUSIVE, 0, (char) 0) : null);
    }

    @Override
    public LockResource lock(LockSpec spec) throws LockException {
        Require.notNull(spec, "lock spec");
        return take(spec, ThreadOwner.CALLING, threadTurn(spec));
    }

    /** Takes what {@code spec} says for {@code owner}: a key in its mode, or each step of a path. */
    private LockResource take(LockSpec spec, Owner owner, FairTurn turn) throws LockException {
        LockLevel level = levelOf(spec);
        LeasePolicy leases = spec.lease() != null ? callLeases.of(spec.lease()) : settings.leases();
        if (spec.isPath()) {
            return PathResource.take(acquirer, LockPaths.prefixes(spec.key(), settings.pathSeparator()), spec.mode(),
                    level, owner, leases, turn);
        }
        return acquirer.acquire(spec.key(), level, spec.mode(), spec.permits(), owner, leases, turn);
    }

    private boolean isFair(LockSpec spec) {
        return spec.fair() != null ? spec.fair() : settings.fair();
    }

    /** The turn of a fair spec for the calling thread, or {@code null} for an unfair one. */
    private FairTurn threadTurn(LockSpec spec) {
        return isFair(spec) ? threadTurn(keys.storeKey(levelOf(spec), spec.key()), spec.mode(), spec.permits(),
                separatorOf(spec)) : null;
    }

    private char separatorOf(LockSpec spec) {
        return spec.isPath() ? settings.pathSeparator() : 0;
    }

    private static FairTurn threadTurn(LockKey key, LockMode mode, int permits, char separator) {
        Thread me = Thread.currentThread();
        return new FairTurn(key, mode, permits, separator, held -> held.isHeldBy(me), me.getName());
    }

    /** The turn of a fair spec for the task {@code task}, or {@code null} for an unfair one. */
    private FairTurn taskTurn(LockSpec spec, TaskOptions task) {
        if (!isFair(spec)) {
            return null;
        }
        String name = task.name();
        return new FairTurn(keys.storeKey(levelOf(spec), spec.key()), spec.mode(), spec.permits(), separatorOf(spec),
                held -> held instanceof TaskAcquisition mine && mine.taskName().equals(name), "task:" + name);
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
    public List<LockWaiter> getWaiters() throws LockManagerException {
        lifecycle.requireNotClosed();
        return requests.list();
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
        FairTurn turn = threadTurn(spec);
        return waits.await(() -> take(spec, ThreadOwner.CALLING, turn), keys.storeKey(levelOf(spec), spec.key()),
                spec.mode(), maxWait, turn);
    }

    @Override
    public LockSet waitForAll(Collection<LockSpec> specs, Duration maxWait) throws LockException,
            InterruptedException {
        List<Integer> order = HeldSet.order(specs, settings.defaultLevel());
        List<LockSpec> given = List.copyOf(specs);
        long budget = Parking.budgetNanos(maxWait);
        long start = System.nanoTime();
        int[] refused = {-1};
        int waitedFor = -1;
        LockResource first = null;
        while (true) {
            try {
                return HeldSet.tryAll(given, order, waitedFor, first,
                        spec -> take(spec, ThreadOwner.CALLING, threadTurn(spec)), refused);
            } catch (AlreadyLockedException e) {
                long waited = System.nanoTime() - start;
                if (budget == 0) {
                    throw e;
                }
                if (waited >= budget) {
                    throw new AlreadyLockedException(e, Duration.ofNanos(waited));
                }
                // nothing of the set is held now: wait for the refused lock alone, then try the rest with it
                waitedFor = refused[0];
                first = waitForLock(given.get(waitedFor), Duration.ofNanos(budget - waited));
            }
        }
    }

    @Override
    public TaskLock lockForTask(LockSpec spec, TaskOptions task) throws LockException {
        Require.notNull(spec, "lock spec");
        Require.notNull(task, "task options");
        return takeForTask(spec, task, taskTurn(spec, task));
    }

    @Override
    public CompletionStage<TaskLock> lockForTaskAsync(LockSpec spec, Duration maxWait, TaskOptions task) {
        Require.notNull(spec, "lock spec");
        Require.notNull(task, "task options");
        long budget = Parking.budgetNanos(maxWait);
        lifecycle.requireOpen();
        FairTurn turn = taskTurn(spec, task);
        return waits.start(spec, task, keys.storeKey(levelOf(spec), spec.key()), budget, turn);
    }

    /** One try at {@code spec} for a new task owner: each call for a task is a lock of its own. */
    private TaskLock takeForTask(LockSpec spec, TaskOptions task, FairTurn turn) throws LockException {
        TaskOwner owner = new TaskOwner(task, settings.nodeId());
        return new TaskHold(take(spec, owner, turn), owner, tasks);
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
    public LockWatch watch(String key, LockLevel level, Duration pollInterval, Consumer<List<Lock>> listener) {
        requireValidArguments(key, level);
        Require.argument(pollInterval != null && pollInterval.compareTo(Duration.ofMillis(10)) >= 0
                && pollInterval.compareTo(Duration.ofHours(1)) <= 0,
                "pollInterval must be from 10 ms to 1 hour, was %s", pollInterval);
        Require.notNull(listener, "listener");
        lifecycle.requireOpen();
        return watches.watch(key, level, keys.storeKey(level, key), pollInterval, listener);
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
