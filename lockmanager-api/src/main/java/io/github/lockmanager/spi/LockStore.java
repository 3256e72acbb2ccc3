package io.github.lockmanager.spi;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.TimeSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Where lock records live. A store only speaks its database; leases, threads, re-entry, renewal scheduling
 * and abort delivery belong to the lock manager.
 *
 * <p>Rules every implementation keeps:
 * <ul>
 *   <li>Each method is one atomic decision of the store per record: {@link #acquire} creates a record only
 *       when no live one exists; a record whose lease has run out counts as absent everywhere. A store keeps a
 *       record per holder of a key, and {@link #acquire} creates one only when no live holder of the key holds it in
 *       a mode that {@linkplain LockMode#conflictsWith conflicts} with the request's (for a permit, also: the key's
 *       live permit holders asked for the same number and are fewer than it; refused, the answer names one of
 *       them).</li>
 *   <li>A request that names a {@linkplain LockRequest#predecessor() predecessor} (a hand-off between threads of
 *       one node) takes over the predecessor's record when it is still the key's, whether or not its lease has
 *       ended, in the one write that acquires, with a new owner token, lease and a higher fencing token. When the
 *       predecessor's record is gone (released, force-released, expired and replaced, lost by the store) the request
 *       is refused, naming a live holder or none, and nothing is written: a hand-off is owner-checked as a release
 *       is, so the manager can tell the predecessor's holder that it lost the lock.</li>
 *   <li>Every write that changes or removes a record is conditional on the owner token of the acquisition
 *       that made it. {@link #markAbort} is the only write across owners, and it only sets the status.</li>
 *   <li>Fencing tokens of a key strictly increase over every acquisition the store ever granted for it, also
 *       across release, expiry and restarts of the nodes.</li>
 *   <li>An ambiguous write (a timeout after which the write may have applied) is resolved by the store, by
 *       reading back the owner token: a store never reports "held by someone else" for its own write, and
 *       never throws after creating a record it then denies.</li>
 *   <li>Failures are {@link LockManagerException}s with the matching error code; an interrupt of the calling
 *       thread is never swallowed.</li>
 *   <li>Thread-safe: several lock managers may share one store instance.</li>
 * </ul>
 */
public interface LockStore extends AutoCloseable {

    /**
     * Creates whatever the store needs (table, index) when absent. Idempotent, and safe to call from many
     * nodes at once. Called by each lock manager before first use.
     *
     * @throws LockManagerException {@code TABLE_CREATION_ERROR} if the structure cannot be created or has an
     *                              unusable layout; {@code CONNECTION_ERROR} if the store cannot be reached
     */
    void initialize() throws LockManagerException;

    /**
     * Creates the record for {@code request} with a lease of {@code lease}, if no live record of the key exists
     * (with modes: if no live holder's mode conflicts with the request's), giving it a fresh fencing token. The
     * answer when refused carries a conflicting holder's record.
     */
    AcquireResult acquire(LockRequest request, Duration lease) throws LockManagerException;

    /**
     * {@link #acquire(LockRequest, Duration)} of a request sent at {@code sentAtNanos}, a reading of this store's
     * {@link #leaseClock()} taken just before the call. A store that measures leases by that clock may judge the
     * request at that reading rather than read the clock again. The reading is never later than one of its own
     * would be, so both ways it errs are safe: a lease granted from it ends no later than the one the caller counts
     * on, and a holder whose lease ends between the reading and the call still counts as live. The lock manager
     * calls this one only when its own time source is the store's lease clock, and counts the lease it is granted
     * from the same reading. The default ignores the reading and passes the call to the two-argument form, so a
     * decorator that overrides only that one still sees every acquisition.
     */
    default AcquireResult acquire(LockRequest request, Duration lease, long sentAtNanos) throws LockManagerException {
        return acquire(request, lease);
    }

    /**
     * Extends the lease of each handle's record to {@code lease} from now, where the record is still that
     * handle's; one round trip per call where the store allows it.
     *
     * @return an answer for every handle given, except a handle the store could not tell about (a per-record
     *         error): it is left out, and the manager counts its lease as unconfirmed and asks again
     */
    Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) throws LockManagerException;

    /**
     * Reads, without writing, whether each handle still holds its record and whether an abort was asked for.
     * Lets the manager poll for aborts more often than it renews.
     *
     * @return an answer for every handle given, except a handle the store could not tell about (a per-record
     *         error): it is left out, and the manager counts its lease as unconfirmed and asks again
     */
    Map<LockHandle, HoldState> check(List<LockHandle> handles) throws LockManagerException;

    /**
     * Removes the record if it is still {@code handle}'s.
     *
     * @return {@code true} if it was removed, {@code false} if the record was not (or no longer) this handle's
     */
    boolean release(LockHandle handle) throws LockManagerException;

    /** The live record of {@code key}, if any; with several holders, any one of them. */
    Optional<LockRecord> read(LockKey key) throws LockManagerException;

    /** Every live record in the store: one per holder. */
    List<LockRecord> list() throws LockManagerException;

    /**
     * Every record of {@code key} the store keeps, for an operator to inspect: the live ones, one per holder, and,
     * where the store keeps them until {@linkplain #purgeIdleRecords() purged}, those whose lease has ended (their
     * expiration time is past). The default answers the live records, from {@link #list()}: a store that can look
     * one key up should.
     */
    default List<LockRecord> inspect(LockKey key) throws LockManagerException {
        List<LockRecord> found = new ArrayList<>();
        for (LockRecord record : list()) {
            if (record.key().equals(key)) {
                found.add(record);
            }
        }
        return found;
    }

    /**
     * Releases every record of {@code key} that {@link #inspect} shows, each by its own handle (so owner-checked, as
     * any release): an operator's force-release. A record whose holder released it meanwhile is not counted.
     *
     * @return the records this call released; on a failure, those released before it stay released
     */
    default List<LockRecord> releaseEvery(LockKey key) throws LockManagerException {
        List<LockRecord> released = new ArrayList<>();
        for (LockRecord record : inspect(key)) {
            if (release(record.handle())) {
                released.add(record);
            }
        }
        return released;
    }

    /**
     * Sets the status of the live record of {@code key} (with modes: of each live holder) to {@code ABORT}, keeping
     * owner and lease.
     *
     * @return {@code true} if a live record was there to mark
     */
    boolean markAbort(LockKey key) throws LockManagerException;

    /**
     * Deletes records that no acquisition can use any more (free or expired, and idle for the store's retention),
     * so that the store holds the keys in use rather than every key ever locked. Fencing tokens of a key still
     * strictly increase after its record was deleted. Lock managers call it now and then from their keeper
     * thread; it is safe to call from many nodes at once.
     *
     * @return how many records were deleted
     */
    default int purgeIdleRecords() throws LockManagerException {
        return 0;
    }

    /**
     * The clock by which this store ends leases, as this node sees it: {@link TimeSource#system()} for a store
     * that uses its server's clock (which runs at real time). A lock manager whose own time source is another
     * one refuses to start on such a store, since its loss detection would not match the store's expiry.
     */
    default TimeSource leaseClock() {
        return TimeSource.system();
    }

    /**
     * The longest lease this store grants, or {@code null} (the default) for any the manager accepts. A store that
     * protects holders across a restart that lost its records for a set time (Redis's restart quarantine) grants no
     * longer lease than that time: the manager refuses a longer one, its own or a call's, with the store's setting
     * named in the message (the store's {@code toString()}).
     */
    default Duration longestLease() {
        return null;
    }

    /**
     * {@code true} if every call is a plain operation on this JVM's memory: it never blocks on I/O, never looks at
     * the caller's interrupt flag, and answers as fast as the JVM runs the calling thread. The manager then skips
     * what guards a call across a network (setting the caller's interrupt flag aside, timing the answer against
     * the lease), which costs more than such a call. {@code false} by default, and for any store with a server.
     */
    default boolean isInMemory() {
        return false;
    }

    /**
     * Watches for a release of {@code key}, held now, where the store can be told of releases (PostgreSQL's
     * {@code LISTEN/NOTIFY}, Redis' pub/sub); a waiter, a thread's or a task's, uses it instead of polling between
     * tries. {@code wake} runs once, on a thread of the store, when a release of {@code key} is announced, when the
     * store stops hearing announcements, or at once (on the calling thread) if the key is not held now. It
     * must be quick: the manager only wakes the waiter there. A lock whose lease runs out is not announced: the waiter
     * tries again after a while anyway. The default cannot be told and returns {@code null}: the caller polls. A fair
     * waiter also watches its key's line of requests ({@link LockKey#requests()}, permits), to hear of a withdrawal
     * before the key's release: a store that can announce the release of one of several permit holders does so (any
     * of them), one that cannot returns {@code null} for such a key.
     *
     * @return what cancels the watch (after which {@code wake} may still run once), or {@code null} if the store
     *         cannot announce releases
     */
    default Runnable watchRelease(LockKey key, Runnable wake) throws LockManagerException {
        return null;
    }

    /**
     * Watches a line of requests ({@code requests}: a key's {@link LockKey#requests()}) where the store announces each
     * withdrawal from it and whose it was: {@code withdrawn} gets the owner token of every request withdrawn (released)
     * from the line from now until the returned cancel runs, on a thread of the store, and {@code null} once if the
     * store stops hearing announcements (the watch is over then). A fair waiter behind others uses it to learn that it
     * is first without reading the line again. It must be quick. The default cannot tell whose a withdrawal was and
     * returns {@code null}: the caller watches with {@link #watchRelease} and reads the line at each announcement.
     *
     * @return what cancels the watch (after which {@code withdrawn} may still run once), or {@code null} if the store
     *         cannot announce withdrawals with their owner tokens
     */
    default Runnable watchWithdrawals(LockKey requests, Consumer<String> withdrawn) throws LockManagerException {
        return null;
    }

    /** Frees the store's own resources; see each store for what it owns. */
    @Override
    void close();
}
