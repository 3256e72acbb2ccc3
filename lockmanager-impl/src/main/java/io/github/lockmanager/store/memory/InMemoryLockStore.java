package io.github.lockmanager.store.memory;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.store.support.Admission;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.TimeSource;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.memory.HolderEntry.Leaving;
import io.github.lockmanager.store.memory.KeyHolders.Closing;
import io.github.lockmanager.store.memory.KeyHolders.Striped;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

import static io.github.lockmanager.store.memory.HolderEntry.holding;
import static io.github.lockmanager.store.memory.HolderEntry.successor;
import static io.github.lockmanager.store.memory.KeyHolders.GONE;
import static io.github.lockmanager.store.memory.KeyHolders.STRIPES;
import static io.github.lockmanager.store.memory.KeyHolders.STRIPE_SPACING;
import static io.github.lockmanager.store.memory.KeyHolders.anyEntryOf;
import static io.github.lockmanager.store.memory.KeyHolders.chainIn;
import static io.github.lockmanager.store.memory.KeyHolders.firstReader;
import static io.github.lockmanager.store.memory.KeyHolders.readersIn;
import static io.github.lockmanager.store.memory.KeyHolders.stripeOf;

/**
 * A store in this JVM's memory: the embedded default, for one process, tests and demos. Several lock managers
 * in one JVM may share an instance and then contend exactly as nodes of a cluster do. Leases are measured by
 * the {@link TimeSource} given (share a {@code ManualTimeSource} of {@code lockmanager-tck} with the managers to move
 * time in tests); the wall-clock times of its records are that clock's monotonic readings, anchored to its wall clock
 * once when the store is made. Fencing tokens come from one counter, so they increase across all keys. It
 * supports every lock mode: a key may have several holders. Nothing survives the
 * JVM. {@link #close()} does nothing: the records stay for whoever else shares the instance.
 *
 * <p>A lock and its release cost one clock reading, the manager's: an acquisition is judged at the reading it was
 * sent with ({@link #acquire(LockRequest, Duration, long)}), and a release reads no clock at all. It takes out the
 * holder's own entry, also one whose lease ran out while nobody took the key (that answers {@code true}, where a
 * store that expires records itself answers {@code false}): either way no one else's hold is touched.
 */
public final class InMemoryLockStore implements LockStore {
    private final TimeSource time;
    private final WallStamps stamps;
    private final KeyTable keys;
    private final AtomicLong fencingTokens = new AtomicLong();

    /** How many keys whose last holder left keep their place in the map at most, for whoever takes them next. */
    static final int KEPT_IDLE = KeyTable.KEPT_IDLE;

    /** A store on the JVM's clocks. */
    public InMemoryLockStore() {
        this(TimeSource.system());
    }

    public InMemoryLockStore(TimeSource time) {
        Require.notNull(time, "time source");
        this.time = time;
        this.stamps = new WallStamps(time);
        this.keys = new KeyTable(time);
    }

    private LockRecord recordOf(HolderEntry entry) {
        return stamps.recordOf(entry);
    }

    @Override
    public void initialize() {
        // nothing to create
    }

    @Override
    public AcquireResult acquire(LockRequest request, Duration lease) {
        return acquire(request, lease, time.nanoTime());
    }

    @Override
    public AcquireResult acquire(LockRequest request, Duration lease, long now) {
        LockMode mode = request.mode();
        LockHandle handle = request.handle();
        LockHandle predecessor = request.predecessor();
        while (true) {
            KeyHolders holders = keys.holdersOf(request.key());
            Object state = holders.state();
            if (state == GONE) {
                keys.remove(request.key(), holders);
                continue;
            }
            if (state instanceof Closing) {
                Thread.onSpinWait();
                continue;
            }
            HolderEntry chain = chainIn(state);
            boolean expired = false;
            boolean handedOver = false;
            // only a permit asks more than the modes: made for it alone, so that the other modes allocate nothing here
            Admission permits = mode == LockMode.PERMIT ? Admission.of(request) : null;
            HolderEntry permitHolder = null;
            for (HolderEntry e = chain; e != null; e = e.next()) {
                if (e.handle().equals(predecessor)) {
                    // still the predecessor's, even past its lease: no one else has had the key since
                    handedOver = true;
                    expired |= !e.isLive(now);
                } else if (!e.isLive(now)) {
                    expired = true;
                } else if (e.handle().equals(handle)) {
                    // the SPI's rule for retried writes: our own record is ours, never "held by someone else"
                    return AcquireResult.acquired(recordOf(e));
                } else if (permits != null ? permits.blockedBy(e.lockMode(), e.permits())
                        : e.lockMode().conflictsWith(mode)) {
                    return AcquireResult.heldBy(recordOf(e));
                } else if (permits != null) {
                    permitHolder = e;
                }
            }
            if (permits != null && permits.full()) {
                return AcquireResult.heldBy(recordOf(permitHolder));
            }
            if (predecessor != null && !handedOver) {
                // owner-checked as a release is: the predecessor lost the key, which its manager must learn
                return AcquireResult.heldBy(null);
            }
            AtomicReferenceArray<HolderEntry> readers = readersIn(state);
            if (mode == LockMode.SHARED && readers != null) {
                AcquireResult joined = joinReaders(holders, state, readers, request, now, lease);
                if (joined != null) {
                    return joined;
                }
                continue;
            }
            // rebuilt only when a holder expired: else the chain stays as it is, and the walk above was the only one
            HolderEntry live = handedOver ? successor(chain, now, new Leaving(predecessor))
                    : expired ? successor(chain, now, UnaryOperator.identity()) : chain;
            HolderEntry mine = new HolderEntry(handle, request.nodeId(), request.threadName(), now,
                    now + lease.toNanos(), fencingTokens.incrementAndGet(), false, (byte) mode.code(),
                    (short) request.permits(), live);
            if (!holders.replace(state, readers == null ? mine : new Striped(mine, readers))) {
                if (mode == LockMode.SHARED) {
                    holders.stripe();
                }
                continue;
            }
            return readers != null && mode.conflictsWith(LockMode.SHARED)
                    ? excludeReaders(request.key(), holders, readers, mine) : AcquireResult.acquired(recordOf(mine));
        }
    }

    /**
     * Adds a shared holder to a key found in {@code state}, which has no live holder in conflict with it (see
     * {@link Striped}); {@code null} if the state changed meanwhile, to be tried again.
     */
    private AcquireResult joinReaders(KeyHolders holders, Object state, AtomicReferenceArray<HolderEntry> readers,
                                      LockRequest request, long now, Duration lease) {
        LockHandle handle = request.handle();
        int stripe = stripeOf(handle);
        while (true) {
            HolderEntry others = readers.get(stripe);
            boolean expired = false;
            for (HolderEntry e = others; e != null; e = e.next()) {
                if (!e.isLive(now)) {
                    expired = true;
                } else if (e.handle().equals(handle)) {
                    return AcquireResult.acquired(recordOf(e));
                }
            }
            HolderEntry live = expired ? successor(others, now, UnaryOperator.identity()) : others;
            HolderEntry mine = new HolderEntry(handle, request.nodeId(), request.threadName(), now,
                    now + lease.toNanos(), fencingTokens.incrementAndGet(), false, (byte) LockMode.SHARED.code(),
                    (short) 0, live);
            if (readers.compareAndSet(stripe, others, mine)) {
                if (holders.state() == state) {
                    return AcquireResult.acquired(recordOf(mine));
                }
                Leaving leaving = new Leaving(handle);
                keys.updateStripe(readers, stripe, leaving, leaving, now);
                return null;
            }
        }
    }

    /**
     * Completes the acquisition of {@code mine}, just entered into a key with shared holders in a mode that conflicts
     * with theirs: refused and taken out again if a live one is there, else granted with a token taken now.
     */
    private AcquireResult excludeReaders(LockKey key, KeyHolders holders, AtomicReferenceArray<HolderEntry> readers,
                                         HolderEntry mine) {
        Predicate<HolderEntry> own = holding(mine.handle());
        long now = time.nanoTime();
        HolderEntry reader = firstReader(readers, e -> true, now);
        if (reader != null) {
            Leaving leaving = new Leaving(mine.handle());
            keys.update(key, holders, leaving, leaving, now);
            return AcquireResult.heldBy(recordOf(reader));
        }
        long token = fencingTokens.incrementAndGet();
        HolderEntry entered = keys.update(key, holders, own, e -> own.test(e) ? e.withToken(token) : e, now);
        // null only if its lease ended meanwhile: it holds nothing, and no holder is to be named
        return entered != null ? AcquireResult.acquired(recordOf(entered.withToken(token)))
                : AcquireResult.heldBy(null);
    }

    @Override
    public Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) {
        Map<LockHandle, HoldState> answers = new LinkedHashMap<>();
        for (LockHandle handle : handles) {
            long now = time.nanoTime();
            long until = now + lease.toNanos();
            Predicate<HolderEntry> own = holding(handle);
            HolderEntry renewed = keys.update(handle.key(), handle, own, e -> own.test(e) ? e.renewedUntil(until) : e,
                    now);
            answers.put(handle, renewed != null ? stateOf(renewed) : HoldState.LOST);
        }
        return answers;
    }

    @Override
    public Map<LockHandle, HoldState> check(List<LockHandle> handles) {
        Map<LockHandle, HoldState> answers = new LinkedHashMap<>();
        long now = time.nanoTime();
        for (LockHandle handle : handles) {
            HolderEntry own = keys.firstHolder(handle.key(), holding(handle), now);
            answers.put(handle, own != null ? stateOf(own) : HoldState.LOST);
        }
        return answers;
    }

    private static HoldState stateOf(HolderEntry entry) {
        return HoldState.of(true, entry.aborted());
    }

    @Override
    public boolean release(LockHandle handle) {
        KeyHolders holders = keys.get(handle.key());
        HolderEntry own = holders != null ? anyEntryOf(holders.state(), handle) : null;
        if (own == null) {
            return false;
        }
        // judged at the holder's own lock time, not at a clock reading: its entry is live then, and a holder expired
        // by then is expired now. An entry of ours whose lease ran out since, which nobody has taken the key from,
        // is taken out too: that touches no one else's hold
        Leaving leaving = new Leaving(handle);
        return keys.update(handle.key(), holders, handle, leaving, leaving, own.lockNanos()) != null;
    }

    @Override
    public Optional<LockRecord> read(LockKey key) {
        HolderEntry live = keys.firstHolder(key, e -> true, time.nanoTime());
        return live != null ? Optional.of(recordOf(live)) : Optional.empty();
    }

    @Override
    public List<LockRecord> list() {
        long now = time.nanoTime();
        purgeIdleRecords();
        List<LockRecord> live = new ArrayList<>(keys.size());
        for (KeyHolders holders : keys.all()) {
            Object state = holders.state();
            addLive(chainIn(state), now, live);
            AtomicReferenceArray<HolderEntry> readers = readersIn(state);
            for (int i = 0; readers != null && i < STRIPES; i++) {
                addLive(readers.get(i * STRIPE_SPACING), now, live);
            }
        }
        return live;
    }

    private void addLive(HolderEntry chain, long now, List<LockRecord> live) {
        for (HolderEntry e = chain; e != null; e = e.next()) {
            if (e.isLive(now)) {
                live.add(recordOf(e));
            }
        }
    }

    @Override
    public boolean markAbort(LockKey key) {
        KeyHolders holders = keys.get(key);
        if (holders == null) {
            return false;
        }
        long now = time.nanoTime();
        boolean marked = keys.update(key, holders, e -> true, HolderEntry::abortMarked, now) != null;
        AtomicReferenceArray<HolderEntry> readers = readersIn(holders.state());
        for (int i = 0; readers != null && i < STRIPES; i++) {
            marked |= keys.updateStripe(readers, i * STRIPE_SPACING, e -> true, HolderEntry::abortMarked, now) != null;
        }
        return marked;
    }

    /**
     * Removes the keys without live holders: those whose holders expired, and those released lately and kept for
     * whoever takes them next (at most {@link #KEPT_IDLE}; older ones leave at once). Tokens come from one counter for
     * all keys.
     */
    @Override
    public int purgeIdleRecords() {
        return keys.purge();
    }

    @Override
    public boolean isInMemory() {
        return true;
    }

    @Override
    public TimeSource leaseClock() {
        return time;
    }

    @Override
    public void close() {
        // the records belong to every manager sharing this instance
    }

    @Override
    public String toString() {
        // held keys and those kept idle for their next taker: counting live holders would read every chain
        return "InMemoryLockStore[" + keys.size() + " keys]";
    }
}
