package io.github.lockmanager.store.cassandra;

import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.store.support.Admission;
import io.github.lockmanager.store.support.FencingEpoch;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The store's decisions, each a function from a key's state to the state to write and the answer it gives once
 * written: the SPI's rules in Java, applied by one compare-and-set of the state cell ({@link CassandraLockStore}).
 *
 * <p>Whose clock: each node's own (epoch milliseconds). A holder's expiry is its writer's reading plus the lease; a node
 * counts another's holder as live until that expiry plus the store's {@code maxClockSkew} (the grace), and its own only
 * until the expiry. So as long as no two nodes' clocks differ by more than the grace, no node takes a key while its
 * holder, by the holder's own clock, still holds it.
 */
final class KeyStates {
    private KeyStates() {
    }

    /** The state to write ({@code null}: nothing to write) and the answer once it is written. */
    record Change<T>(KeyState next, T answer) {
    }

    static Change<AcquireResult> acquire(KeyState state, LockRequest request, long leaseMillis, long now, long grace) {
        LockKey key = request.key();
        String owner = request.handle().ownerToken();
        LockHandle predecessor = request.predecessor();
        Admission admission = Admission.of(request);
        List<Holder> kept = new ArrayList<>(state.holders().size() + 1);
        boolean handedOver = false;
        for (Holder h : state.holders()) {
            if (predecessor != null && h.owner().equals(predecessor.ownerToken())) {
                // still the predecessor's, even past its lease: no one else has had the key since
                handedOver = true;
            } else if (h.owner().equals(owner)) {
                if (h.liveAt(now, 0)) {
                    // a retried write that had applied: our own record is ours, never "held by someone else"
                    return new Change<>(null, AcquireResult.acquired(h.record(key)));
                }
            } else if (!h.liveAt(now, grace)) {
                continue;
            } else if (admission.blockedBy(h.record(key))) {
                return new Change<>(null, AcquireResult.heldBy(h.record(key)));
            } else {
                kept.add(h);
            }
        }
        if (admission.full()) {
            return new Change<>(null, AcquireResult.heldBy(admission.permitHolder()));
        }
        if (predecessor != null && !handedOver) {
            // owner-checked as a release is: the predecessor lost the key, which its manager must learn
            return new Change<>(null, AcquireResult.heldBy(kept.isEmpty() ? null : kept.get(0).record(key)));
        }
        long token = FencingEpoch.next(state.counter(), now);
        Holder mine = new Holder(owner, request.mode(), request.permits(), request.nodeId(), request.threadName(), now,
                now + leaseMillis, token, false);
        kept.add(mine);
        return new Change<>(new KeyState(token, kept), AcquireResult.acquired(mine.record(key)));
    }

    /** Renews each of {@code owners}' holders of one key that is still live by the renewer's clock. */
    static Change<Map<String, HoldState>> renew(KeyState state, Collection<String> owners, long leaseMillis, long now) {
        Map<String, HoldState> answers = new LinkedHashMap<>();
        for (String owner : owners) {
            answers.put(owner, HoldState.LOST);
        }
        List<Holder> next = new ArrayList<>(state.holders().size());
        boolean changed = false;
        for (Holder h : state.holders()) {
            if (!answers.containsKey(h.owner())) {
                next.add(h);
            } else if (h.liveAt(now, 0)) {
                next.add(h.renewedUntil(now + leaseMillis));
                answers.put(h.owner(), HoldState.of(true, h.aborted()));
                changed = true;
            } else {
                // ours and over: nobody took the key since, but the manager has counted it lost; leave no trace
                changed = true;
            }
        }
        return new Change<>(changed ? new KeyState(state.counter(), next) : null, answers);
    }

    /** Whether each of {@code owners} still holds the key, and whether an abort was asked of it; no write. */
    static Map<String, HoldState> check(KeyState state, Collection<String> owners, long now) {
        Map<String, HoldState> answers = new LinkedHashMap<>();
        for (String owner : owners) {
            answers.put(owner, HoldState.LOST);
        }
        for (Holder h : state.holders()) {
            if (answers.containsKey(h.owner()) && h.liveAt(now, 0)) {
                answers.put(h.owner(), HoldState.of(true, h.aborted()));
            }
        }
        return answers;
    }

    /**
     * Takes out {@code owner}'s holder; answers whether it was there. One whose lease ran out is taken out too and
     * answers {@code true}: it is still in the cell, so nobody has taken the key from it.
     */
    static Change<Boolean> release(KeyState state, String owner) {
        List<Holder> next = new ArrayList<>(state.holders().size());
        boolean found = false;
        for (Holder h : state.holders()) {
            if (h.owner().equals(owner)) {
                found = true;
            } else {
                next.add(h);
            }
        }
        return new Change<>(found ? new KeyState(state.counter(), next) : null, found);
    }

    /** Marks every live holder for abort; answers whether there was one. */
    static Change<Boolean> markAbort(KeyState state, long now, long grace) {
        List<Holder> next = new ArrayList<>(state.holders().size());
        boolean live = false;
        boolean changed = false;
        for (Holder h : state.holders()) {
            if (h.liveAt(now, grace)) {
                live = true;
                changed |= !h.aborted();
                next.add(h.abortMarked());
            } else {
                next.add(h);
            }
        }
        return new Change<>(changed ? new KeyState(state.counter(), next) : null, live);
    }

    /** The holders another node counts as live at {@code now}. */
    static List<Holder> live(KeyState state, long now, long grace) {
        List<Holder> live = new ArrayList<>(state.holders().size());
        for (Holder h : state.holders()) {
            if (h.liveAt(now, grace)) {
                live.add(h);
            }
        }
        return live;
    }

    /** The latest expiry of the state's holders, or {@code now} without any. */
    static long lastExpiry(KeyState state, long now) {
        long last = now;
        for (Holder h : state.holders()) {
            last = Math.max(last, h.expiresMillis());
        }
        return last;
    }
}
