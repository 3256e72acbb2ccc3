package io.github.lockmanager.engine;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.TimeSource;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;

/**
 * Asks the store for an acquisition the {@link Acquirer} has put in the table, taking over a record this node parked
 * for a hand-off where there is one, and settles the answer: a grant recorded (or released again when it came too late
 * to use, or after the manager closed), a refusal naming the holder, a failure with whatever the store may have
 * written released in the background. Every way out leaves the table right.
 */
final class Grants {
    private static final Logger log = LoggerFactory.getLogger(Grants.class);

    private final String nodeId;
    private final LockStore store;
    private final TimeSource time;
    private final AcquisitionTable table;
    private final Lifecycle lifecycle;
    private final StoreCalls calls;
    private final Releaser releaser;
    private final HandOffs handOffs;
    private final HeldTooLong heldTooLong;
    private final Events events;

    Grants(EngineSettings settings, AcquisitionTable table, Lifecycle lifecycle, StoreCalls calls, Releaser releaser,
           HandOffs handOffs, HeldTooLong heldTooLong, Events events) {
        this.nodeId = settings.nodeId();
        this.store = settings.store();
        this.time = settings.timeSource();
        this.table = table;
        this.lifecycle = lifecycle;
        this.calls = calls;
        this.releaser = releaser;
        this.handOffs = handOffs;
        this.heldTooLong = heldTooLong;
        this.events = events;
    }

    static IllegalStateException permitsDiffer(String key, LockLevel level, int asked, int held, String who) {
        return new IllegalStateException("lock '" + key + "' (" + level + ") was asked for with " + asked
                + " permits, but " + who + " holds it with " + held + ": every holder of a key must ask for the same "
                + "number of permits");
    }

    /**
     * Asks the store for {@code mine}, which is in the table: {@code true} if granted. Else {@code mine} is out of
     * the table; {@code false} means try once more (this node's own earlier release of the key failed and has now
     * been done), anything else is thrown.
     */
    boolean granted(Acquisition mine, boolean leftoverReleased) throws LockException {
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
                : new HeldUntil(key, holder.nodeId(), holder.threadName(), here, holder.expirationTime());
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
