package io.github.lockmanager.engine;

import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockWaiter;
import io.github.lockmanager.TimeSource;
import io.github.lockmanager.internal.RequestNote;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * The requests of this node's fair waiters, kept as records of the store so that every node sees the line: a request
 * is one of {@link LockManager#MAX_PERMITS} permits of the key's {@linkplain LockKey#requests() requests key}, so the
 * store gives each one a fencing token of its own above every earlier one's (the line's order; shared holders may share
 * one) and a short lease, which this node renews on its keeper thread in batches; a dead node's requests end with
 * their lease. What the request asks for is its
 * {@link RequestNote}. A fair waiter asks {@link #ahead} before each try and registers once refused; its request is
 * withdrawn when the wait ends in any way.
 */
final class Requests {
    private static final Logger log = LoggerFactory.getLogger(Requests.class);
    /**
     * The order of a key's line, the same on every node: when the store registered each request (its notion of time:
     * the database's or server's clock, on HBase the registering node's), then its fencing token, then its owner
     * token. The time comes first because not every store shows each permit holder's own token at once (HBase shows
     * its row's counter until the holder's first renewal); within one millisecond the token decides.
     */
    static final Comparator<LockRecord> IN_LINE = Comparator.comparing(LockRecord::lockTime)
            .thenComparingLong(LockRecord::fencingToken).thenComparing(LockRecord::ownerToken);

    private final String nodeId;
    private final LockStore store;
    private final StoreCalls calls;
    private final int batchSize;
    private final TimeSource time;
    private final AcquisitionTable table;
    private final KeyScope keys;
    private final OwnerTokens tokens;
    /**
     * A request's lease: the manager's, at most {@link #LONGEST_REQUEST_LEASE}. A request of a node that died holds up
     * its key's line until its lease ends, so it is kept short, and renewed every {@link #RENEWAL} while it waits.
     */
    private final Duration requestLease;
    static final Duration LONGEST_REQUEST_LEASE = Duration.ofSeconds(5);
    static final Duration RENEWAL = Duration.ofSeconds(1);
    private final ConcurrentHashMap<LockHandle, FairTurn> registered = new ConcurrentHashMap<>();
    /**
     * Where a wait withdraws its request, so that neither a new holder nor a thread that cancels a task's wait waits
     * for the store call.
     */
    private final Executor background;
    /** Requests whose withdrawal runs in the background and has not ended: what closing the manager withdraws. */
    private final Set<LockHandle> withdrawing = ConcurrentHashMap.newKeySet();
    /** Whether the last renewal of requests failed, so that a store that stays down is warned of once. Keeper thread. */
    private boolean renewalFailing;

    Requests(EngineSettings settings, StoreCalls calls, AcquisitionTable table, KeyScope keys, OwnerTokens tokens,
             Executor background) {
        this.background = background;
        this.nodeId = settings.nodeId();
        this.store = settings.store();
        this.calls = calls;
        Duration lease = settings.leases().lease();
        this.requestLease = lease.compareTo(LONGEST_REQUEST_LEASE) < 0 ? lease : LONGEST_REQUEST_LEASE;
        this.batchSize = settings.renewalBatchSize();
        this.time = settings.timeSource();
        this.table = table;
        this.keys = keys;
        this.tokens = tokens;
    }

    /**
     * Whether an earlier request keeps {@code turn}'s wait from taking {@code key} in {@code mode} now (every request
     * counts as earlier while it registered none). On its own key: one before it in line in a conflicting mode (any
     * permit request before a permit request). On another key, an ancestor of its path that it takes in an intention
     * mode: a request there in a mode that conflicts with it, registered before its own: a waiting request on a parent
     * path keeps new locks below it out.
     *
     * @return {@code null} if the wait may try now, else a refusal naming the first request before it
     */
    AlreadyLockedException ahead(FairTurn turn, LockKey key, LockMode mode) throws LockManagerException {
        boolean own = key.equals(turn.key);
        LockHandle registeredAs = turn.request;
        if (registeredAs != null && turn.clearOf == registeredAs) {
            // nothing stood before its request when last asked, and no request can come before it later (a new one
            // gets a later token and a later time): the line need not be read again
            return null;
        }
        LockHandle mine = own ? registeredAs : null;
        Instant since = turn.isRegistered() ? turn.since : null;
        // a registered wait for a plain key notes every request before it that keeps it back, so that the store's
        // announcements of their withdrawals tell it when it is first ({@link FairTurn#withdrawn})
        boolean noting = mine != null && turn.separator == 0;
        if (noting) {
            turn.beginRead();
        }
        AlreadyLockedException first = null;
        Set<String> keptBackBy = noting ? new HashSet<>() : null;
        List<LockRecord> line;
        try {
            line = line(key);
        } catch (LockManagerException | RuntimeException e) {
            if (noting) {
                turn.readFailed();
            }
            throw e;
        }
        for (LockRecord request : line) {
            RequestNote note = RequestNote.read(request.threadName());
            if (own) {
                if (request.handle().equals(mine)) {
                    // the rest of the line came after it
                    break;
                }
                if (blocks(note.mode(), mode)) {
                    if (first == null) {
                        turn.blockerExpires = request.expirationTime();
                        first = refusal(key, request, note);
                    }
                    if (!noting) {
                        break;
                    }
                    keptBackBy.add(request.ownerToken());
                }
            } else if (note.mode().conflictsWith(mode) && (since == null || request.lockTime().isBefore(since))) {
                return refusal(key, request, note);
            }
        }
        if (noting && turn.endRead(mine, keptBackBy)) {
            // nothing keeps it back, or all that did were withdrawn while the line was read
            first = null;
        }
        if (first != null) {
            return first;
        }
        if (registeredAs != null && own && turn.separator == 0) {
            turn.clearOf = registeredAs;
        }
        return null;
    }

    /**
     * Reads the line of {@code turn}'s plain key once, just after its request was registered: refused by a holder, if
     * nothing stands before it, it is first ({@link FairTurn#clearOf}) while the key is still held, and its try at
     * the release is the acquisition alone; held back by earlier requests, it notes them, so that their withdrawals tell
     * it when it is first ({@link FairTurn#withdrawn}). One store call, off the path from the release to the next grant.
     */
    void findPlace(FairTurn turn) {
        if (turn.separator != 0 || !turn.isRegistered()) {
            return;
        }
        try {
            ahead(turn, turn.key, turn.mode);
        } catch (LockManagerException e) {
            // only a head start: the try at the release reads the line itself
            log.debug("Node '{}' could not read the line of lock '{}' after registering a request: {}", nodeId,
                    turn.key.name(), e.toString());
        }
    }

    /** Whether a waiting request in {@code earlier} keeps a later one in {@code later} from trying. */
    static boolean blocks(LockMode earlier, LockMode later) {
        return earlier.conflictsWith(later) || (earlier == LockMode.PERMIT && later == LockMode.PERMIT);
    }

    private AlreadyLockedException refusal(LockKey key, LockRecord request, RequestNote note) {
        return new AlreadyLockedException(key.name(), request.nodeId(), note.owner() + " (waiting before)", false);
    }

    /** The live requests of {@code key}, first in line first. */
    List<LockRecord> line(LockKey key) throws LockManagerException {
        Instant now = time.now();
        List<LockRecord> live = new ArrayList<>();
        for (LockRecord record : calls.run(() -> store.inspect(key.requests()))) {
            if (record.expirationTime().isAfter(now)) {
                live.add(record);
            }
        }
        live.sort(IN_LINE);
        return live;
    }

    /**
     * Registers {@code turn}'s request, one store write: its place in line from now on. A store that refuses it (all
     * {@link LockManager#MAX_PERMITS} places of the key's line taken) leaves the wait unregistered: it then waits as an unfair one would, and asks again at
     * its next refusal.
     */
    void register(FairTurn turn) throws LockManagerException {
        if (turn.isRegistered()) {
            return;
        }
        LockHandle handle = tokens.newHandle(turn.key.requests());
        RequestNote note = new RequestNote(turn.mode, turn.permits, turn.separator, heldBy(turn), turn.ownerName);
        LockRequest request = LockRequest.permit(handle, nodeId, note.write(), LockManager.MAX_PERMITS);
        AcquireResult result = calls.acquire(request, requestLease, time.nanoTime());
        if (!result.isAcquired()) {
            log.debug("Store {} did not register the request of {} for lock '{}' of node '{}'; it waits unregistered",
                    store, turn.ownerName, turn.key.name(), nodeId);
            return;
        }
        turn.since = result.record().lockTime();
        turn.registeredAtNanos = System.nanoTime();
        turn.request = handle;
        registered.put(handle, turn);
    }

    /** The serials of the locks this node's owner of {@code turn} holds, in this node's owner tokens. */
    private long[] heldBy(FairTurn turn) {
        List<Acquisition> held = table.held();
        long[] serials = new long[held.size()];
        int n = 0;
        for (Acquisition acquisition : held) {
            if (turn.owns.test(acquisition)) {
                long serial = tokens.serialOf(acquisition.handle());
                if (serial >= 0) {
                    serials[n++] = serial;
                }
            }
        }
        return java.util.Arrays.copyOf(serials, n);
    }

    /**
     * Withdraws {@code turn}'s request, if it has one: the wait ended. The store call runs in the background, so that
     * no caller waits for it (a new holder, a thread cancelling a task's wait); a request left a moment longer only
     * keeps later ones waiting as long. When the manager closes it runs here. A failed call leaves the record to its
     * lease, which this node no longer renews.
     */
    void withdraw(FairTurn turn) {
        LockHandle handle = turn.request;
        if (handle == null) {
            return;
        }
        turn.request = null;
        registered.remove(handle);
        withdrawing.add(handle);
        try {
            background.execute(() -> {
                if (withdrawing.remove(handle)) {
                    withdraw(turn, handle);
                }
            });
        } catch (RuntimeException closing) {
            if (withdrawing.remove(handle)) {
                withdraw(turn, handle);
            }
        }
    }

    private void withdraw(FairTurn turn, LockHandle handle) {
        try {
            calls.release(handle);
        } catch (LockManagerException | RuntimeException e) {
            log.debug("Node '{}' could not withdraw the request of {} for lock '{}' from store {}; it ends with its "
                    + "lease: {}", nodeId, turn.ownerName, turn.key.name(), store, e.toString());
        }
    }

    /**
     * Renews the registered requests, in batches; a request the store no longer has loses its place. Runs on the
     * keeper thread every {@link #renewalPeriod()}, well inside a request's lease.
     */
    void keep() {
        if (registered.isEmpty()) {
            return;
        }
        List<LockHandle> handles = new ArrayList<>(registered.keySet());
        boolean failed = false;
        for (int from = 0; from < handles.size(); from += batchSize) {
            List<LockHandle> batch = handles.subList(from, Math.min(handles.size(), from + batchSize));
            try {
                Map<LockHandle, HoldState> answers = calls.renew(batch, requestLease);
                for (LockHandle handle : batch) {
                    if (answers.get(handle) == HoldState.LOST) {
                        FairTurn turn = registered.remove(handle);
                        if (turn != null && handle.equals(turn.request)) {
                            // its place is gone: it registers again at its next refusal, at the end of the line
                            turn.request = null;
                        }
                    }
                }
            } catch (LockManagerException | RuntimeException e) {
                failed = true;
                if (renewalFailing) {
                    log.debug("Node '{}' could not renew {} lock requests in store {}: {}", nodeId, batch.size(),
                            store, e.toString());
                } else {
                    log.warn("Node '{}' could not renew {} lock requests in store {}: {}. Retrying every {}; a request "
                                    + "whose lease ({}) ends loses its place in line, and its waiter registers again "
                                    + "at the end of it", nodeId, batch.size(), store, e.toString(), renewalPeriod(),
                            requestLease);
                }
            }
        }
        if (renewalFailing && !failed) {
            log.info("Node '{}' renews its lock requests in store {} again", nodeId, store);
        }
        renewalFailing = failed;
    }

    /** The waiters of this manager's client in the store, per key oldest first. */
    List<LockWaiter> list() throws LockManagerException {
        List<LockRecord> records = new ArrayList<>();
        Instant now = time.now();
        for (LockRecord record : calls.run(store::list)) {
            if (record.key().isRequests() && keys.includes(record.key()) && record.expirationTime().isAfter(now)) {
                records.add(record);
            }
        }
        records.sort(Comparator.comparing((LockRecord r) -> r.key().storageKey()).thenComparing(IN_LINE));
        List<LockWaiter> waiters = new ArrayList<>(records.size());
        for (LockRecord record : records) {
            waiters.add(LockWaiter.of(record));
        }
        return waiters;
    }

    /** The turn whose request is {@code handle}, if it is one of this node's registered ones. */
    FairTurn registeredTurn(LockHandle handle) {
        return registered.get(handle);
    }

    /** How often {@link #keep} runs: every second, or a third of a shorter request lease. */
    Duration renewalPeriod() {
        Duration third = requestLease.dividedBy(3);
        return third.compareTo(RENEWAL) < 0 ? third : RENEWAL;
    }

    /** This node's registered requests that registered at {@code cutoffNanos} or before. */
    List<FairTurn> waitingSince(long cutoffNanos) {
        List<FairTurn> found = new ArrayList<>();
        for (FairTurn turn : registered.values()) {
            if (turn.registeredAtNanos - cutoffNanos <= 0) {
                found.add(turn);
            }
        }
        return found;
    }

    /** How many requests this node has registered. */
    int size() {
        return registered.size();
    }

    /** Withdraws every request left; the manager closes (its waits have ended already). */
    void stop() {
        for (FairTurn turn : List.copyOf(registered.values())) {
            withdraw(turn);
        }
        for (LockHandle handle : List.copyOf(withdrawing)) {
            if (withdrawing.remove(handle)) {
                try {
                    calls.release(handle);
                } catch (LockManagerException | RuntimeException e) {
                    log.debug("Node '{}' could not withdraw a lock request from store {} while closing; it ends with "
                            + "its lease: {}", nodeId, store, e.toString());
                }
            }
        }
    }
}
