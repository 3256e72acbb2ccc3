package io.github.lockmanager.engine;

import io.github.lockmanager.Lock;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.TaskLock;
import io.github.lockmanager.TaskOptions;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The lock manager: a local table of this node's acquisitions in front of a {@link LockStore}. Re-entry and
 * contention between threads of this node are answered from the table; the store is asked only to take,
 * release, renew and inspect records. The parts below it never call back into it: {@link Acquirer} takes new
 * locks, {@link Releaser} gives them back, {@link Delivery} tells holders of aborts and losses, and
 * {@link LeaseKeeper} runs renewal and the watchdog in the background.
 */
final class LockEngine implements LockManager {
    private static final Logger log = LoggerFactory.getLogger(LockEngine.class);

    private final EngineSettings settings;
    private final LockStore store;
    private final AcquisitionTable table = new AcquisitionTable();
    /**
     * The table's maps of exclusive acquisitions by key, held here too: a re-entry and its unlock each look a key up,
     * and a map read from a field of this object is one dependent load less on their path than one read through the
     * table, which JMH's re-entry figure shows. Only read here. {@code lock} and {@code unlock} each pick the map in
     * line, which measured faster than the same lookup through a private helper.
     */
    private final ConcurrentHashMap<String, Acquisition> dcExclusive = table.exclusive(LockLevel.DC);
    private final ConcurrentHashMap<String, Acquisition> xdcExclusive = table.exclusive(LockLevel.XDC);
    private final KeyScope keys;
    private final Lifecycle lifecycle;
    private final StoreCalls calls;
    private final Releaser releaser;
    private final Delivery delivery;
    private final Acquirer acquirer;
    private final LeaseKeeper keeper;
    private final CallLeases callLeases;
    private final Events events;
    private final AdminBean adminBean;
    private final Waits waits;
    private final AsyncWaits asyncWaits;

    private LockEngine(EngineSettings settings) {
        this.settings = settings;
        this.store = settings.store();
        this.keys = new KeyScope(settings);
        this.lifecycle = new Lifecycle(settings.nodeId());
        this.calls = StoreCalls.of(store, settings.timeSource());
        this.events = new Events(settings);
        NamedThreadFactory keeperThreads = new NamedThreadFactory("lockmanager-" + settings.nodeId() + "-keeper");
        ScheduledExecutorService keeperThread = Executors.newSingleThreadScheduledExecutor(keeperThreads);
        HandOffs handOffs = new HandOffs(settings, lifecycle);
        this.releaser = new Releaser(settings, table, calls, events, new Losses(settings, table, calls, events), handOffs,
                keeperThread);
        this.delivery = new Delivery(settings, calls, releaser, events);
        HeldTooLong heldTooLong = new HeldTooLong(settings, events);
        this.acquirer = new Acquirer(settings, table, keys, lifecycle, calls, releaser, handOffs, heldTooLong, events);
        this.keeper = new LeaseKeeper(settings, table, calls, releaser, delivery, heldTooLong, events, keeperThreads,
                keeperThread);
        this.callLeases = new CallLeases(settings.leases(), keeper, settings.store());
        this.adminBean = new AdminBean(settings, table, this, heldTooLong);
        this.waits = new Waits(settings, table, keys, events);
        this.asyncWaits = new AsyncWaits(settings, table, events, lifecycle);
        table.watchGone(asyncWaits::keyGone);
    }

    static LockEngine start(EngineSettings settings) {
        LockEngine engine = new LockEngine(settings);
        engine.keeper.start();
        if (settings.registerMBean()) {
            engine.adminBean.register();
        }
        log.info("Lock manager started: node '{}', client '{}', farm '{}', lease {}, renewal every {}, abort poll every {}, store {}",
                settings.nodeId(), settings.clientId(), settings.farmId(), settings.leases().lease(),
                settings.leases().renewalInterval(), settings.leases().abortPollInterval(), settings.store());
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
     * to 2,500 bytes of code (InlineSmallCode), and with the thread read here lock and unlock compiled to 2,432 bytes
     * each on an AMD EPYC (2,400 on an Intel Xeon), against 2,528 with it read there (2,272 and 2,304 on the EPYC
     * since they read the maps from this object); over the limit, a caller that C2 compiles later calls them
     * instead.
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
        lifecycle.requireNotClosed();
        for (Acquisition local : table.all(level, key)) {
            if (local.isHeld()) {
                return true;
            }
        }
        return calls.run(() -> store.read(keys.storeKey(level, key))).isPresent();
    }

    @Override
    public List<Lock> getLocks() throws LockManagerException {
        lifecycle.requireNotClosed();
        List<Lock> locks = new ArrayList<>();
        for (LockRecord record : calls.run(store::list)) {
            if (keys.includes(record.key())) {
                locks.add(record.toLock());
            }
        }
        return locks;
    }

    @Override
    public void abort(String key) throws LockManagerException {
        abort(key, settings.defaultLevel());
    }

    @Override
    public void abort(String key, LockLevel level) throws LockManagerException {
        requireValidArguments(key, level);
        lifecycle.requireNotClosed();
        boolean heldHere = false;
        for (Acquisition local : table.all(level, key)) {
            heldHere |= local.isHeld();
            delivery.abort(local);
        }
        boolean marked = calls.run(() -> store.markAbort(keys.storeKey(level, key)));
        log.info("Abort of lock '{}' asked on node '{}': {}", key, settings.nodeId(), heldHere
                ? "its holders on this node were interrupted" + (marked ? ", and it is marked in the store for other nodes' holders" : "")
                : marked ? "marked in the store for its holders' nodes to see" : "it was not locked, nothing to do");
    }

    @Override
    public List<Lock> inspect(String key, LockLevel level) throws LockManagerException {
        requireValidArguments(key, level);
        lifecycle.requireNotClosed();
        List<Lock> locks = new ArrayList<>();
        for (LockRecord record : calls.run(() -> store.inspect(keys.storeKey(level, key)))) {
            locks.add(record.toLock());
        }
        return locks;
    }

    @Override
    public int forceRelease(String key, LockLevel level, String requestedBy) throws LockManagerException {
        requireValidArguments(key, level);
        Require.argument(requestedBy != null && !requestedBy.isBlank(), "requestedBy must name who asked for the "
                + "force-release, was '%s'", requestedBy);
        lifecycle.requireNotClosed();
        List<String> released = new ArrayList<>();
        for (LockRecord record : calls.run(() -> store.releaseEvery(keys.storeKey(level, key)))) {
            released.add("node '" + record.nodeId() + "' thread '" + record.threadName() + "' " + record.mode()
                    + " token " + record.fencingToken());
            loseLocally(record.handle());
        }
        if (released.isEmpty()) {
            log.info("Force-release of lock '{}' ({}) asked by '{}' on node '{}': it was not locked, nothing to do", key,
                    level, requestedBy, settings.nodeId());
        } else {
            log.warn("Lock '{}' ({}) FORCE-RELEASED as asked by '{}' on node '{}': {}. Each holder's node interrupts it "
                            + "at its next check; the next holder gets a higher fencing token", key, level, requestedBy,
                    settings.nodeId(), released);
        }
        return released.size();
    }

    /** Tells a holder of this node at once that its record was force-released. */
    private void loseLocally(LockHandle handle) {
        for (Acquisition local : table.all(handle.key().level(), handle.key().name())) {
            if (local.handle().equals(handle)) {
                delivery.lose(local, LockLossReason.NOT_OWNED);
            }
        }
    }

    @Override
    public LockResource waitForLock(LockSpec spec, Duration maxWait) throws LockException, InterruptedException {
        Require.notNull(spec, "lock spec");
        return waits.await(() -> take(spec, ThreadOwner.CALLING), spec.key(), levelOf(spec), spec.mode(), maxWait);
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
        long budget = Waits.budgetNanos(maxWait);
        lifecycle.requireOpen();
        return asyncWaits.start(() -> takeForTask(spec, task), keys.storeKey(levelOf(spec), spec.key()), spec.mode(),
                budget);
    }

    /** One try at {@code spec} for a new task owner: each call for a task is a lock of its own. */
    private TaskLock takeForTask(LockSpec spec, TaskOptions task) throws LockException {
        TaskOwner owner = new TaskOwner(task, settings.nodeId());
        return new TaskHold(take(spec, owner), owner, asyncWaits);
    }

    private LockLevel levelOf(LockSpec spec) {
        return spec.level() != null ? spec.level() : settings.defaultLevel();
    }

    /** How many task waits are under way, for tests. */
    int taskWaits() {
        return asyncWaits.size();
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
        if (!lifecycle.beginClose()) {
            return;
        }
        asyncWaits.stop();
        List<Acquisition> held = table.held();
        log.info("Closing lock manager of node '{}': {} locks held; interrupting their holders (asking tasks to stop) "
                + "and waiting up to {} for them to unlock", settings.nodeId(), held.size(), settings.shutdownTimeout());
        for (Acquisition acquisition : held) {
            Thread holder = acquisition.holder();
            if (holder != null && holder != Thread.currentThread()) {
                calls.interrupt(holder);
            } else if (holder == null && acquisition.takeAbortDelivery()) {
                acquisition.abortRequested(settings.nodeId());
            }
        }
        boolean interrupted = awaitHolders(held);
        List<Acquisition> released = new ArrayList<>();
        for (Acquisition acquisition : table.held()) {
            if (acquisition.end()) {
                log.debug("Lock {} still held at shutdown of node '{}': releasing it", acquisition, settings.nodeId());
                releaser.release(acquisition, acquisition.confirmedUntilNanos());
                released.add(acquisition);
            }
        }
        if (!released.isEmpty()) {
            log.warn("{} locks were still held when node '{}' shut down (first: {}); their holders did not unlock "
                            + "within {}, so the manager released them", released.size(), settings.nodeId(),
                    released.subList(0, Math.min(3, released.size())), settings.shutdownTimeout());
        }
        keeper.stop();
        adminBean.unregister();
        lifecycle.closed();
        log.info("Lock manager of node '{}' closed", settings.nodeId());
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for the holders to unlock, up to the shutdown timeout; {@code true} if this thread was interrupted. */
    private boolean awaitHolders(List<Acquisition> held) {
        long deadline = System.nanoTime() + settings.shutdownTimeout().toNanos();
        for (Acquisition acquisition : held) {
            if (acquisition.isHeldBy(Thread.currentThread())) {
                continue;
            }
            try {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0 || !acquisition.awaitGone(remaining, TimeUnit.NANOSECONDS)) {
                    return false;
                }
            } catch (InterruptedException e) {
                return true;
            }
        }
        return false;
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
