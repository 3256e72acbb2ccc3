package io.github.lockmanager.engine;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.Lock;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.Require;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The lock manager: a local table of this node's acquisitions in front of a {@link LockStore}. Re-entry and
 * contention between threads of this node are answered from the table; the store is asked only to take,
 * release, renew and inspect records. Background work lives in {@link LeaseKeeper}.
 */
final class LockEngine implements LockManager {
    private static final Logger log = LoggerFactory.getLogger(LockEngine.class);

    private enum Lifecycle { OPEN, CLOSING, CLOSED }

    private final EngineSettings settings;
    private final LockStore store;
    private final LeasePolicy leases;
    /** See {@link LockStore#isInMemory()}: no interrupt flag to set aside, no answer to time. */
    private final boolean inMemoryStore;
    private final AcquisitionTable table = new AcquisitionTable();
    /** This manager's farm and client at each level, checked once: {@link #storeKey} only adds the caller's key. */
    private final LockKey dcKeys;
    private final LockKey xdcKeys;
    private final AtomicReference<Lifecycle> lifecycle = new AtomicReference<>(Lifecycle.OPEN);
    /** Owner tokens are unique per acquisition, also across restarts of a node that keeps its node id. */
    private final String ownerTokenPrefix;
    private final AtomicLong ownerTokenCounter = new AtomicLong();
    private final LeaseKeeper keeper;
    private final AdminBean adminBean = new AdminBean(this);
    /** Threads inside a store call of this manager, and whether this manager interrupted them during it. */
    private final Map<Thread, Boolean> storeCallers = new ConcurrentHashMap<>();

    private LockEngine(EngineSettings settings) {
        this.settings = settings;
        this.store = settings.store();
        this.leases = settings.leases();
        this.inMemoryStore = store.isInMemory();
        this.dcKeys = LockKey.dc(settings.farmId(), settings.clientId(), "");
        this.xdcKeys = LockKey.xdc(settings.clientId(), "");
        byte[] random = new byte[8];
        new SecureRandom().nextBytes(random);
        this.ownerTokenPrefix = HexFormat.of().formatHex(random) + ":";
        this.keeper = new LeaseKeeper(this, settings);
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
        requireState(Lifecycle.OPEN);
        Thread me = Thread.currentThread();
        // a re-entry: a few lines here, so that it inlines into callers; the rest is lockNew
        Acquisition mine = table.get(level, key);
        if (mine != null && mine.isHeldBy(me) && mine.addHold()) {
            return new HoldResource(this, mine, false);
        }
        return lockNew(key, level, me);
    }

    /** Takes {@code key} for {@code me} from the store, unless the table says who has it or finds it stale. */
    private LockResource lockNew(String key, LockLevel level, Thread me) throws LockException {
        boolean leftoverReleased = false;
        while (true) {
            Acquisition existing = table.get(level, key);
            if (existing != null) {
                if (existing.isHeldBy(me) && existing.addHold()) {
                    return new HoldResource(this, existing, false);
                }
                if (existing.isGone()) {
                    table.remove(existing);
                    continue;
                }
                if (!existing.isHeldBy(me) && !existing.isHolderAlive() && existing.isHeld()) {
                    reclaim(existing);
                    continue;
                }
                throw new AlreadyLockedException(key, settings.nodeId(), existing.holderName(), true);
            }
            // a key already in the table passed this when it was first locked
            KeyValidator.validate(key);
            Acquisition mine = new Acquisition(
                    LockHandle.of(storeKey(level, key), ownerTokenPrefix, ownerTokenCounter.incrementAndGet()), me);
            if (table.putIfAbsent(mine) != null) {
                continue;
            }
            AcquireResult result = acquireFromStore(mine);
            if (result.isAcquired()) {
                return new HoldResource(this, mine, true);
            }
            LockRecord holder = result.record();
            if (!leftoverReleased && holder != null && keeper.isPendingRelease(holder.handle())) {
                // our own earlier release failed and is still queued: finish it now rather than refuse ourselves
                leftoverReleased = keeper.releaseNow(holder.handle());
                if (leftoverReleased) {
                    continue;
                }
            }
            throw holder == null
                    ? new AlreadyLockedException(key, null, null, false)
                    : new AlreadyLockedException(key, holder.nodeId(), holder.threadName(), false);
        }
    }

    /** Asks the store for {@code mine}; on anything but success {@code mine} is ended and out of the table. */
    private AcquireResult acquireFromStore(Acquisition mine) throws LockException {
        LockHandle handle = mine.handle();
        long sentAt = settings.timeSource().nanoTime();
        AcquireResult result;
        try {
            LockRequest request = new LockRequest(handle, settings.nodeId(), mine.holderName());
            result = withInterruptSetAside(() -> store.acquire(request, leases.lease()));
        } catch (LockManagerException e) {
            abandon(mine);
            if (e.getErrorCode() == ErrorCode.LOCK_UNAVAILABLE) {
                AlreadyLockedException refused = new AlreadyLockedException(handle.key().name(), null, null, false);
                refused.initCause(e);
                throw refused;
            }
            // the write may have applied although the store could not confirm it: never leave it behind
            keeper.releaseLater(handle, leases.leaseEnd(sentAt));
            throw e;
        } catch (RuntimeException e) {
            abandon(mine);
            keeper.releaseLater(handle, leases.leaseEnd(sentAt));
            throw new LockManagerException(ErrorCode.INTERNAL_ERROR, "store " + store + " failed to acquire lock '"
                    + handle.key().name() + "': " + e, e);
        }
        if (!result.isAcquired()) {
            abandon(mine);
            return result;
        }
        long tookNanos = inMemoryStore ? 0 : settings.timeSource().nanoTime() - sentAt;
        if (leases.tooLateToUse(tookNanos)) {
            // the watchdog would declare it lost at once: the holder could not do any work under it. Released
            // before it is retired, so that a waiter of this node that wakes finds the key free in the store
            mine.end();
            releaseInStore(handle, leases.leaseEnd(sentAt));
            retire(mine);
            throw new LockManagerException(ErrorCode.CONNECTION_ERROR, "acquiring lock '" + handle.key().name()
                    + "' took " + TimeUnit.NANOSECONDS.toMillis(tookNanos) + " ms, too close to its lease of "
                    + leases.lease().toMillis() + " ms for the holder to rely on it; it was released. The store is "
                    + "slow: look at its latency, or lengthen the lease");
        }
        mine.grant(result.record(), sentAt, leases.leaseEnd(sentAt));
        if (lifecycle.get() != Lifecycle.OPEN) {
            // close() ran while the store call was in flight: the lock must not outlive the manager; whoever
            // ends the acquisition first (this thread or close()) releases it
            if (mine.end()) {
                releaseInStore(handle, leases.leaseEnd(sentAt));
                retire(mine);
            }
            throw closedException();
        }
        if (log.isDebugEnabled()) {
            log.debug("Lock '{}' acquired by thread '{}' on node '{}', fencing token {}",
                    handle.key().name(), mine.holderName(), settings.nodeId(), result.record().fencingToken());
        }
        return result;
    }

    private void abandon(Acquisition acquisition) {
        acquisition.end();
        retire(acquisition);
    }

    /** Takes an ended acquisition out of the table and wakes whoever waits for it. */
    private void retire(Acquisition acquisition) {
        table.remove(acquisition);
        acquisition.markGone();
    }

    @Override
    public void unlock(String key) {
        unlock(key, settings.defaultLevel());
    }

    @Override
    public void unlock(String key, LockLevel level) {
        requireArguments(key, level);
        requireNotClosed();
        Thread me = Thread.currentThread();
        Acquisition acquisition = table.get(level, key);
        if (acquisition == null) {
            KeyValidator.validate(key);
        }
        if (acquisition == null || !acquisition.isHeldBy(me) || !acquisition.isHeld()) {
            log.warn("Thread '{}' called unlock('{}') on node '{}' but holds no such lock (never taken, already "
                    + "released, or lost); nothing was changed", me.getName(), key, settings.nodeId());
            return;
        }
        dropHold(acquisition);
    }

    /** Gives back one hold of {@code acquisition}, from any thread; the last one releases it in the store. */
    void dropHold(Acquisition acquisition) {
        if (acquisition.dropHold()) {
            releaseInStore(acquisition.handle(), acquisition.confirmedUntilNanos());
            retire(acquisition);
        }
    }

    /**
     * Removes the record if it is still this handle's. The release is cleanup that must happen even for an
     * interrupted holder (abort and loss interrupt it), so it runs with the interrupt flag set aside. A failure
     * hands the release to the keeper, which retries until the lease would have ended anyway.
     */
    private void releaseInStore(LockHandle handle, long leaseEndNanos) {
        try {
            if (!withInterruptSetAside(() -> store.release(handle))) {
                log.warn("Lock '{}' of node '{}' was no longer this node's in the store when released (its lease had "
                        + "ended or it was lost); nothing of anyone else's was touched", handle.key().name(), settings.nodeId());
            }
        } catch (LockManagerException | RuntimeException e) {
            log.warn("Could not release lock '{}' of node '{}' in store {}: {}. Retrying in the background until its "
                    + "lease ends", handle.key().name(), settings.nodeId(), store, e.toString());
            keeper.releaseLater(handle, leaseEndNanos);
        }
    }

    @FunctionalInterface
    private interface StoreCall<T> {
        T run() throws LockManagerException;
    }

    /**
     * Runs a store call on a caller's thread with its interrupt flag set aside, and sets the flag again after if
     * it was set before, or if this manager interrupted the thread during the call (an abort, a loss, shutdown):
     * such an interrupt is the holder's to act on, and some store clients fail at once on a set flag, or clear it
     * and carry on (HBase's does both).
     */
    private <T> T withInterruptSetAside(StoreCall<T> call) throws LockManagerException {
        if (inMemoryStore) {
            return call.run();
        }
        Thread me = Thread.currentThread();
        boolean interrupted = Thread.interrupted();
        storeCallers.put(me, Boolean.FALSE);
        try {
            return call.run();
        } finally {
            if (Boolean.TRUE.equals(storeCallers.remove(me)) || interrupted) {
                me.interrupt();
            }
        }
    }

    /** Interrupts a holder, noting it for {@link #withInterruptSetAside} if the holder is inside a store call. */
    private void interruptHolder(Thread holder) {
        storeCallers.computeIfPresent(holder, (thread, interrupted) -> Boolean.TRUE);
        holder.interrupt();
    }

    @Override
    public boolean isLocked(String key) throws LockManagerException {
        return isLocked(key, settings.defaultLevel());
    }

    @Override
    public boolean isLocked(String key, LockLevel level) throws LockManagerException {
        requireValidArguments(key, level);
        requireNotClosed();
        Acquisition local = table.get(level, key);
        if (local != null && local.isHeld()) {
            return true;
        }
        return withInterruptSetAside(() -> store.read(storeKey(level, key))).isPresent();
    }

    @Override
    public List<Lock> getLocks() throws LockManagerException {
        requireNotClosed();
        List<Lock> locks = new ArrayList<>();
        for (LockRecord record : withInterruptSetAside(store::list)) {
            LockKey key = record.key();
            if (!key.clientId().equals(settings.clientId())
                    || (key.level() == LockLevel.DC && !key.farmId().equals(settings.farmId()))) {
                continue;
            }
            locks.add(record.toLock());
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
        requireNotClosed();
        Acquisition local = table.get(level, key);
        if (local != null) {
            deliverAbort(local);
        }
        boolean marked = withInterruptSetAside(() -> store.markAbort(storeKey(level, key)));
        log.info("Abort of lock '{}' asked on node '{}': {}", key, settings.nodeId(), local != null && local.isHeld()
                ? "its holder on this node was interrupted" : marked ? "marked in the store for its holder's node to see"
                : "it was not locked, nothing to do");
    }

    /** Interrupts the holder of a live acquisition, once per acquisition. */
    void deliverAbort(Acquisition acquisition) {
        if (!acquisition.takeAbortDelivery()) {
            return;
        }
        Thread holder = acquisition.holder();
        if (holder != null && holder.isAlive()) {
            log.info("Abort requested for lock {} on node '{}': interrupting the holder; the lock stays held until it "
                    + "unlocks or its lease ends", acquisition, settings.nodeId());
            interruptHolder(holder);
        }
    }

    /** The store or the clock says {@code acquisition} is no longer ours: tell its holder. */
    void lose(Acquisition acquisition, LockLossReason reason) {
        if (!acquisition.loseIfHeld()) {
            return;
        }
        retire(acquisition);
        Thread holder = acquisition.holder();
        if (holder != null && holder.isAlive()) {
            interruptHolder(holder);
        }
        if (reason == LockLossReason.RENEWAL_UNCONFIRMED) {
            // the record may still be ours in the store: remove it once the store answers again
            keeper.releaseLater(acquisition.handle(), acquisition.confirmedUntilNanos());
        }
        log.error("Lock {} on node '{}' is LOST ({}): {}. The holder thread was interrupted and must stop the work "
                        + "the lock protects; another node may take the key now.", acquisition, settings.nodeId(), reason,
                reason == LockLossReason.NOT_OWNED ? "the store says it is no longer this acquisition's"
                        : "no renewal was confirmed and the lease would end before the next attempt");
        try {
            settings.lossListener().lockLost(acquisition.grantedLock(settings.nodeId()), holder, reason);
        } catch (RuntimeException e) {
            log.error("Lock loss listener failed for lock {} on node '{}'", acquisition, settings.nodeId(), e);
        }
    }

    /** Releases the lock of a holder thread that died without unlocking. */
    void reclaim(Acquisition acquisition) {
        if (!acquisition.end()) {
            return;
        }
        log.warn("Thread '{}' died holding lock '{}' on node '{}' ({} unbalanced holds): releasing it",
                acquisition.holderName(), acquisition.key().name(), settings.nodeId(), acquisition.holds());
        releaseInStore(acquisition.handle(), acquisition.confirmedUntilNanos());
        retire(acquisition);
    }

    LockManagerMXBean admin() {
        return adminBean;
    }

    /** The acquisitions currently held, in no particular order. */
    List<Acquisition> heldAcquisitions() {
        return table.held();
    }

    @Override
    public boolean awaitLocalRelease(String key, LockLevel level, long timeout, TimeUnit unit) throws InterruptedException {
        requireValidArguments(key, level);
        requireNotClosed();
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (true) {
            Acquisition local = table.get(level, key);
            if (local == null || local.isGone()) {
                return true;
            }
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0 || !local.awaitGone(remaining, TimeUnit.NANOSECONDS)) {
                return false;
            }
        }
    }

    EngineSettings settings() {
        return settings;
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
        if (!lifecycle.compareAndSet(Lifecycle.OPEN, Lifecycle.CLOSING)) {
            return;
        }
        List<Acquisition> held = heldAcquisitions();
        log.info("Closing lock manager of node '{}': {} locks held; interrupting their holders and waiting up to {} "
                + "for them to unlock", settings.nodeId(), held.size(), settings.shutdownTimeout());
        for (Acquisition acquisition : held) {
            Thread holder = acquisition.holder();
            if (holder != null && holder != Thread.currentThread()) {
                interruptHolder(holder);
            }
        }
        boolean interrupted = awaitHolders(held);
        List<Acquisition> released = new ArrayList<>();
        for (Acquisition acquisition : heldAcquisitions()) {
            if (acquisition.end()) {
                log.debug("Lock {} still held at shutdown of node '{}': releasing it", acquisition, settings.nodeId());
                releaseInStore(acquisition.handle(), acquisition.confirmedUntilNanos());
                retire(acquisition);
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
        lifecycle.set(Lifecycle.CLOSED);
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
     * The checks that cost nothing; the full {@link KeyValidator} scan is left to the caller for keys not in the
     * table (a key in it was validated when first locked).
     */
    private static void requireArguments(String key, LockLevel level) {
        Require.notNull(key, "lock key");
        Require.notNull(level, "lock level");
    }

    private static void requireValidArguments(String key, LockLevel level) {
        requireArguments(key, level);
        KeyValidator.validate(key);
    }

    private LockKey storeKey(LockLevel level, String key) {
        return (level == LockLevel.DC ? dcKeys : xdcKeys).withName(key);
    }

    private void requireState(Lifecycle required) {
        if (lifecycle.get() != required) {
            throw closedException();
        }
    }

    private void requireNotClosed() {
        if (lifecycle.get() == Lifecycle.CLOSED) {
            throw closedException();
        }
    }

    private IllegalStateException closedException() {
        return new IllegalStateException("lock manager of node '" + settings.nodeId() + "' is "
                + (lifecycle.get() == Lifecycle.CLOSED ? "closed" : "closing") + "; build a new one to take locks");
    }

    @Override
    public String toString() {
        return "LockManager[node=" + settings.nodeId() + ", client=" + settings.clientId() + ", farm="
                + settings.farmId() + ", held=" + table.size() + ", " + lifecycle.get() + "]";
    }
}
