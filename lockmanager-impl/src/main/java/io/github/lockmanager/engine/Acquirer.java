package io.github.lockmanager.engine;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockHandle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;


/**
 * Takes a key for an {@link Owner}, a thread or a task, that does not hold it yet, or re-enters one a thread holds
 * (also while the manager closes, as work that unwinds may; anything else is refused from then on): from the local
 * table when an owner of this node has it (a refusal, or a stale entry cleaned up), else from the store. Every way
 * out of here leaves the table right: a granted acquisition in it, anything else out of it and its record released.
 */
final class Acquirer {
    private static final Logger log = LoggerFactory.getLogger(Acquirer.class);

    private final String nodeId;
    private final AcquisitionTable table;
    private final KeyScope keys;
    private final Lifecycle lifecycle;
    private final Releaser releaser;
    private final Events events;
    private final Grants grants;
    private final OwnerTokens tokens;
    private final Requests requests;

    Acquirer(EngineSettings settings, AcquisitionTable table, KeyScope keys, Lifecycle lifecycle, StoreCalls calls,
             Releaser releaser, HandOffs handOffs, HeldTooLong heldTooLong, Events events, OwnerTokens tokens,
             Requests requests) {
        this.nodeId = settings.nodeId();
        this.table = table;
        this.keys = keys;
        this.lifecycle = lifecycle;
        this.releaser = releaser;
        this.events = events;
        this.grants = new Grants(settings, table, lifecycle, calls, releaser, handOffs, heldTooLong, events);
        this.tokens = tokens;
        this.requests = requests;
    }

    /**
     * Takes {@code key} exclusively for the calling thread, which does not hold it exclusively yet, with
     * {@code leases}' lease: the path of {@code lock(key)}, with nothing to allocate for its owner.
     */
    LockResource acquire(String key, LockLevel level, LeasePolicy leases, FairTurn turn) throws LockException {
        return acquire(key, level, LockMode.EXCLUSIVE, 0, ThreadOwner.CALLING, leases, turn);
    }

    /**
     * Takes {@code key} in {@code mode} for {@code owner}: a new hold on the owner's own acquisition that covers
     * {@code mode} (exclusively included; a thread's only, a task never re-enters), else a holder of its own in the
     * store. {@code permits} go with {@link LockMode#PERMIT} and are 0 otherwise. With a {@code turn} (a fair try), a
     * new holder is not asked of the store while an earlier request waits for the key ({@link Requests#ahead}); a
     * re-entry or a hold the owner's own covers is never held back, since the waiters may wait for the owner itself.
     *
     * @throws AlreadyLockedException if a holder in a conflicting mode has the key (or all its permits are held)
     * @throws IllegalStateException  if {@code owner} would upgrade a hold of its own, or the key's holders (or the
     *                                owner's own permit) use another number of permits
     */
    LockResource acquire(String key, LockLevel level, LockMode mode, int permits, Owner owner, LeasePolicy leases,
                         FairTurn turn) throws LockException {
        if (mode == LockMode.PERMIT) {
            Acquisition own = table.get(level, key, owner.id(), LockMode.PERMIT);
            if (own != null && !own.isGone() && own.permits() != permits) {
                throw Grants.permitsDiffer(key, level, permits, own.permits(), owner + " itself");
            }
        }
        try {
            return take(key, level, mode, permits, owner, leases, turn);
        } catch (AlreadyLockedException e) {
            events.refused(key, level, mode);
            throw e;
        }
    }

    private LockResource take(String key, LockLevel level, LockMode mode, int permits, Owner owner,
                              LeasePolicy leases, FairTurn turn) throws LockException {
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
            if (turn != null) {
                AlreadyLockedException before = requests.ahead(turn, keys.storeKey(level, key), mode);
                turn.behind = before != null;
                if (before != null) {
                    throw before;
                }
            }
            Acquisition mine = owner.acquisition(handle(key, level), mode, permits, leases);
            if (table.putIfAbsent(mine) != null) {
                continue;
            }
            if (grants.granted(mine, leftoverReleased)) {
                return new HoldResource(releaser, mine, true);
            }
            leftoverReleased = true;
        }
    }

    private LockHandle handle(String key, LockLevel level) {
        return tokens.newHandle(keys.storeKey(level, key));
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
}
