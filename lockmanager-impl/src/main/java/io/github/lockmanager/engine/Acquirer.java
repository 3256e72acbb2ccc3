package io.github.lockmanager.engine;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.TimeSource;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Takes a key for an {@link Owner}, a thread or a task, that does not hold it yet, or re-enters one a thread holds
 * (also while the manager closes, as work that unwinds may; anything else is refused from then on): from the local
 * table when an owner of this node has it (a refusal, or a stale entry cleaned up), else from the store. Every way
 * out of here leaves the table right: a granted acquisition in it, anything else out of it and its record released.
 */
final class Acquirer {
    private static final Logger log = LoggerFactory.getLogger(Acquirer.class);

    private final String nodeId;
    private final LockStore store;
    private final TimeSource time;
    private final AcquisitionTable table;
    private final KeyScope keys;
    private final Lifecycle lifecycle;
    private final StoreCalls calls;
    private final Releaser releaser;
    private final HandOffs handOffs;
    private final HeldTooLong heldTooLong;
    private final Events events;
    /** Owner tokens are unique per acquisition, also across restarts of a node that keeps its node id. */
    private final String ownerTokenPrefix;
    private final AtomicLong ownerTokenCounter = new AtomicLong();

    Acquirer(EngineSettings settings, AcquisitionTable table, KeyScope keys, Lifecycle lifecycle, StoreCalls calls,
             Releaser releaser, HandOffs handOffs, HeldTooLong heldTooLong, Events events) {
        this.nodeId = settings.nodeId();
        this.store = settings.store();
        this.time = settings.timeSource();
        this.table = table;
        this.keys = keys;
        this.lifecycle = lifecycle;
        this.calls = calls;
        this.releaser = releaser;
        this.handOffs = handOffs;
        this.heldTooLong = heldTooLong;
        this.events = events;
        byte[] random = new byte[8];
        new SecureRandom().nextBytes(random);
        this.ownerTokenPrefix = HexFormat.of().formatHex(random) + ":";
    }

    /**
     * Takes {@code key} exclusively for the calling thread, which does not hold it exclusively yet, with
     * {@code leases}' lease: the path of {@code lock(key)}, with nothing to allocate for its owner.
     */
    LockResource acquire(String key, LockLevel level, LeasePolicy leases) throws LockException {
        return acquire(key, level, LockMode.EXCLUSIVE, 0, ThreadOwner.CALLING, leases);
    }

    /**
     * Takes {@code key} in {@code mode} for {@code owner}: a new hold on the owner's own acquisition that covers
     * {@code mode} (exclusively included; a thread's only, a task never re-enters), else a holder of its own in the
     * store. {@code permits} go with {@link LockMode#PERMIT} and are 0 otherwise.
     *
     * @throws AlreadyLockedException if a holder in a conflicting mode has the key (or all its permits are held)
     * @throws IllegalStateException  if {@code owner} would upgrade a hold of its own, or the key's holders (or the
     *                                owner's own permit) use another number of permits
     */
    LockResource acquire(String key, LockLevel level, LockMode mode, int permits, Owner owner, LeasePolicy leases)
            throws LockException {
        if (mode == LockMode.PERMIT) {
            Acquisition own = table.get(level, key, owner.id(), LockMode.PERMIT);
            if (own != null && !own.isGone() && own.permits() != permits) {
                throw permitsDiffer(key, level, permits, own.permits(), owner + " itself");
            }
        }
        try {
            return take(key, level, mode, permits, owner, leases);
        } catch (AlreadyLockedException e) {
            events.refused(key, level, mode);
            throw e;
        }
    }

    private static IllegalStateException permitsDiffer(String key, LockLevel level, int asked, int held, String who) {
        return new IllegalStateException("lock '" + key + "' (" + level + ") was asked for with " + asked
                + " permits, but " + who + " holds it with " + held + ": every holder of a key must ask for the same "
                + "number of permits");
    }

    private LockResource take(String key, LockLevel level, LockMode mode, int permits, Owner owner,
                              LeasePolicy leases) throws LockException {
        boolean exclusive = mode == LockMode.EXCLUSIVE;
        boolean leftoverReleased = false;
        while (true) {
            Acquisition existing = table.get(level, key);
            if (existing != null) {
                // held exclusively: the owner's own lock covers the new hold in any mode; anyone else's refuses it
                LockResource reentry = reenterOrClear(existing, owner);
                if (reentry != null) {
                    return reentry;
                }
                continue;
            }
            if (!exclusive) {
                Acquisition own = ownCovering(key, level, mode, owner);
                if (own != null) {
                    if (own.addHold()) {
                        return new HoldResource(releaser, own, false);
                    }
                    // our own hold of it is being released right now: as for an exclusive lock, a refusal
                    throw new AlreadyLockedException(key, nodeId, own.holderName(), true);
                }
            }
            lifecycle.requireOpen();
            if (!exclusive || table.hasNonExclusive()) {
                refuseUpgrade(key, level, mode, owner);
            }
            // a key already in the table passed this when it was first locked
            LockKey.requireName(key);
            Acquisition mine = owner.acquisition(handle(key, level), mode, permits, leases);
            if (table.putIfAbsent(mine) != null) {
                continue;
            }
            if (granted(mine, leftoverReleased)) {
                return new HoldResource(releaser, mine, true);
            }
            leftoverReleased = true;
        }
    }

    private LockHandle handle(String key, LockLevel level) {
        return LockHandle.of(keys.storeKey(level, key), ownerTokenPrefix, ownerTokenCounter.incrementAndGet());
    }

    /**
     * Answers for the exclusive entry of a key in the table: a new hold on it when it is {@code owner}'s, {@code null}
     * after cleaning it up when it no longer stands in the way (gone, or its holder thread died or task ended), else
     * a refusal naming its holder, without a store call.
     */
    private LockResource reenterOrClear(Acquisition existing, Owner owner) throws AlreadyLockedException {
        boolean mine = owner.holds(existing);
        if (mine && existing.addHold()) {
            return new HoldResource(releaser, existing, false);
        }
        lifecycle.requireOpen();
        if (existing.isGone()) {
            table.remove(existing);
            return null;
        }
        if (!mine && existing.isHeld() && !existing.isHolderAlive()) {
            releaser.reclaim(existing);
            return null;
        }
        throw new AlreadyLockedException(existing.key().name(), nodeId, existing.holderName(), true);
    }

    /** {@code owner}'s live non-exclusive acquisition of the key whose mode covers {@code mode}, if any. */
    private Acquisition ownCovering(String key, LockLevel level, LockMode mode, Owner owner) {
        for (LockMode held : ModeAcquisition.MODES) {
            if (held.covers(mode)) {
                Acquisition own = table.get(level, key, owner.id(), held);
                if (own != null && !own.isGone()) {
                    return own;
                }
            }
        }
        return null;
    }

    /**
     * Refuses what would turn a hold of {@code owner} into a stronger one that conflicts with it (shared into
     * exclusive, for one): the store would refuse it against the owner's own holder, and two threads that each
     * waited for such an upgrade would wait for each other forever. A task holds nothing before it asks.
     */
    private void refuseUpgrade(String key, LockLevel level, LockMode mode, Owner owner) {
        for (LockMode held : ModeAcquisition.MODES) {
            if (!held.conflictsWith(mode)) {
                continue;
            }
            Acquisition own = table.get(level, key, owner.id(), held);
            if (own != null && own.isHeld()) {
                throw new IllegalStateException(owner + " holds lock '" + key + "' (" + level + ") " + held
                        + " and asked for it " + mode + ": a lock is never upgraded, since two threads upgrading at "
                        + "once would wait for each other forever. Give back the " + held + " hold first");
            }
        }
    }

    /**
     * Asks the store for {@code mine}, which is in the table: {@code true} if granted. Else {@code mine} is out of
     * the table; {@code false} means try once more (this node's own earlier release of the key failed and has now
     * been done), anything else is thrown.
     */
    private boolean granted(Acquisition mine, boolean leftoverReleased) throws LockException {
        AcquireResult result = fromStore(mine);
        if (result.isAcquired()) {
            return true;
        }
        LockRecord holder = result.record();
        if (holder != null && mine.mode() == LockMode.PERMIT && holder.mode() == LockMode.PERMIT
                && holder.permits() != mine.permits()) {
            throw permitsDiffer(mine.key().name(), mine.key().level(), mine.permits(), holder.permits(),
                    "thread '" + holder.threadName() + "' on node '" + holder.nodeId() + "'");
        }
        if (!leftoverReleased && holder != null && releaser.isPending(holder.handle())
                && releaser.releaseNow(holder.handle())) {
            // our own earlier release failed and is still queued: finished now rather than refuse ourselves
            return false;
        }
        String key = mine.key().name();
        // a holder in another mode on this node (several threads may hold a key shared) is one a waiter can be woken
        // for; the table must show it too, as another manager may have been given this manager's node id
        boolean here = holder != null && nodeId.equals(holder.nodeId())
                && !table.all(mine.key().level(), key).isEmpty();
        throw holder == null
                ? new AlreadyLockedException(key, null, null, false)
                : new AlreadyLockedException(key, holder.nodeId(), holder.threadName(), here);
    }

    /** Asks the store for {@code mine}; on anything but success {@code mine} is ended and out of the table. */
    private AcquireResult fromStore(Acquisition mine) throws LockException {
        // a record this node let go of for a waiter here is taken over in this one call
        HandOffs.Parked parked = mine.mode() == LockMode.EXCLUSIVE ? handOffs.claim(mine.handle().key()) : null;
        if (parked == null) {
            return fromStore(mine, null);
        }
        AcquireResult handedOver = fromStore(mine, parked);
        // null: the key was free once the giver's record had gone, so this acquisition asks for it as any other would
        return handedOver != null ? handedOver : fromStore(mine, null);
    }

    /**
     * Asks the store for {@code mine}, taking over {@code parked}'s record if not null; on anything but success
     * {@code mine} is ended and out of the table, except after a hand-off refused on a key no one holds, which answers
     * {@code null} and leaves {@code mine} as it was for another try.
     */
    private AcquireResult fromStore(Acquisition mine, HandOffs.Parked parked) throws LockException {
        LockHandle handle = mine.handle();
        LeasePolicy leases = mine.leases();
        long sentAt = time.nanoTime();
        AcquireResult result;
        try {
            LockRequest request = new LockRequest(handle, nodeId, mine.holderName(), mine.mode(),
                    parked != null ? parked.handle() : null, mine.permits());
            result = calls.acquire(request, leases.lease(), sentAt);
        } catch (LockManagerException e) {
            abandon(mine);
            releaseParked(parked);
            if (e.getErrorCode() == ErrorCode.LOCK_UNAVAILABLE) {
                AlreadyLockedException refused = new AlreadyLockedException(handle.key().name(), null, null, false);
                refused.initCause(e);
                throw refused;
            }
            // the write may have applied although the store could not confirm it: never leave it behind
            releaser.releaseLater(handle, leases.leaseEnd(sentAt));
            throw e;
        } catch (RuntimeException e) {
            abandon(mine);
            releaseParked(parked);
            releaser.releaseLater(handle, leases.leaseEnd(sentAt));
            throw new LockManagerException(ErrorCode.INTERNAL_ERROR, "store " + store + " failed to acquire lock '"
                    + handle.key().name() + "': " + e, e);
        }
        if (!result.isAcquired()) {
            if (parked != null) {
                // a parked record that was still the key's would have been taken over: it is gone (force-released,
                // lost by the store) since before its holder let go, who is told now; nothing to release
                releaser.handOffRefused(parked);
                if (result.record() == null) {
                    return null;
                }
            }
            abandon(mine);
            return result;
        }
        if (parked != null) {
            handOffs.handedOver(handle, parked);
        }
        long tookNanos = calls.tookSince(sentAt);
        if (leases.tooLateToUse(tookNanos)) {
            // the watchdog would declare it lost at once: the holder could not do any work under it. Released
            // before it leaves the table, so that a waiter of this node that wakes finds the key free in the store
            mine.end();
            releaser.release(mine, leases.leaseEnd(sentAt));
            throw new LockManagerException(ErrorCode.CONNECTION_ERROR, "acquiring lock '" + handle.key().name()
                    + "' took " + TimeUnit.NANOSECONDS.toMillis(tookNanos) + " ms, too close to its lease of "
                    + leases.lease().toMillis() + " ms for the holder to rely on it; it was released. The store is "
                    + "slow: look at its latency, or lengthen the lease");
        }
        mine.grant(result.record(), sentAt, leases.leaseEnd(sentAt));
        heldTooLong.taken(mine);
        events.acquired(mine);
        if (!lifecycle.isOpen()) {
            // close() ran while the store call was in flight: the lock must not outlive the manager; whoever
            // ends the acquisition first (this thread or close()) releases it
            if (mine.end()) {
                releaser.release(mine, leases.leaseEnd(sentAt));
            }
            throw lifecycle.closedException();
        }
        if (log.isDebugEnabled()) {
            log.debug("Lock '{}' acquired by thread '{}' on node '{}', fencing token {}{}",
                    handle.key().name(), mine.holderName(), nodeId, result.record().fencingToken(),
                    parked != null ? ", handed over from " + parked.handle() : "");
        }
        return result;
    }

    /** Has the record parked for a hand-off that failed released: the failed call may or may not have taken it. */
    private void releaseParked(HandOffs.Parked parked) {
        if (parked != null) {
            releaser.releaseLater(parked.handle(), parked.leaseEndNanos());
        }
    }

    /** Ends an acquisition the store did not grant; it has no record to release. */
    private void abandon(Acquisition acquisition) {
        acquisition.end();
        table.retire(acquisition);
    }
}
