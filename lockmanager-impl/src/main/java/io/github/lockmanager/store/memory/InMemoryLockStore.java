package io.github.lockmanager.store.memory;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.Require;
import io.github.lockmanager.TimeSource;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * A store in this JVM's memory: the embedded default, for one process, tests and demos. Several lock managers
 * in one JVM may share an instance and then contend exactly as nodes of a cluster do. Leases are measured by
 * the {@link TimeSource} given (share a {@code ManualTimeSource} of {@code lockmanager-tck} with the managers to move
 * time in tests); the wall-clock times of its records are that clock's monotonic readings, anchored to its wall clock
 * once when the store is made. Fencing tokens come from one counter, so they increase across all keys. It
 * {@linkplain #supportsModes() supports every lock mode}: a key may have several holders. Nothing survives the
 * JVM. {@link #close()} does nothing: the records stay for whoever else shares the instance.
 */
public final class InMemoryLockStore implements LockStore {
    private final TimeSource time;
    /**
     * The wall clock read once, beside the lease clock's reading {@link #anchorNanos} of the same moment: records are
     * stamped from lease-clock readings (see {@link #wallMillis}), so a grant reads one clock, not two, and an entry
     * keeps no wall-clock times of its own.
     */
    private final Instant anchor;
    private final long anchorNanos;
    private final Map<LockKey, Holders> records = new ConcurrentHashMap<>();
    private final AtomicLong fencingTokens = new AtomicLong();
    /** The keys that became idle lately, each at a random place; see {@link Idle}. */
    private final AtomicReferenceArray<Idle> recentlyIdle = new AtomicReferenceArray<>(KEPT_IDLE);

    /** How many keys whose last holder left keep their place in the map at most, for whoever takes them next. */
    static final int KEPT_IDLE = 1024;

    private static final LockMode[] MODES = LockMode.values();

    /**
     * One holder of a key, as compact as it can be kept (a held lock costs heap for as long as it is held): the
     * {@link LockRecord} a caller sees is made from it on demand. The holders of one key form an immutable chain
     * through {@code next}, replaced as a whole in the key's {@link Holders}; an exclusive key has a chain of one.
     * Its times are readings of the lease clock, whose wall-clock stamps {@link #wallMillis} derives, and the mode is
     * a byte: an entry fits in 56 bytes.
     */
    private record Entry(LockHandle handle, String nodeId, String threadName, long lockNanos, long expiresAtNanos,
                         long fencingToken, boolean aborted, byte mode, Entry next) {
        boolean isLive(long nowNanos) {
            return expiresAtNanos - nowNanos > 0;
        }

        LockMode lockMode() {
            return MODES[mode];
        }

        Entry renewedUntil(long nanos) {
            return with(nanos, aborted, next);
        }

        Entry abortMarked() {
            return with(expiresAtNanos, true, next);
        }

        Entry copy() {
            return with(expiresAtNanos, aborted, next);
        }

        Entry withNext(Entry next) {
            return next == this.next ? this : with(expiresAtNanos, aborted, next);
        }

        private Entry with(long expiresAtNanos, boolean aborted, Entry next) {
            return new Entry(handle, nodeId, threadName, lockNanos, expiresAtNanos, fencingToken, aborted, mode, next);
        }
    }

    /**
     * The holders of one key: its state replaced by compare-and-set, so that holders of one key in modes that share
     * it never wait for each other's turn on a lock (taking turns for the map's lock of the key, 8 readers of one key
     * ran at about half the rate of 8 writers of distinct keys). The state is a chain of {@link Entry}s while the key
     * is held, an {@link Idle} when its last holder left, {@link #GONE} for good when it leaves the map (a new holders
     * object comes next), and {@code null} only before its first holder. Every state a key has is a new object, so
     * that a state read before a compare-and-set is the key's state until it succeeds: a fencing token taken between
     * the two is above the token of every acquisition granted before it.
     */
    private static final class Holders {
        private static final AtomicReferenceFieldUpdater<Holders, Object> STATE =
                AtomicReferenceFieldUpdater.newUpdater(Holders.class, Object.class, "state");

        private volatile Object state;

        Object state() {
            return state;
        }

        /** The chain of holders, live or not; {@code null} if the key has none. */
        Entry chain() {
            return chainIn(state);
        }

        static Entry chainIn(Object state) {
            return state instanceof Entry chain ? chain : null;
        }

        boolean replace(Object expected, Object next) {
            return STATE.compareAndSet(this, expected, next);
        }
    }

    /**
     * The state of a key whose last holder left, a new one each time. The key keeps its place in the map while the
     * idle state stands at its random place among the {@link #KEPT_IDLE} recently idle: a key taken again and again
     * then costs no map writes (a removal and an insertion per cycle, which 8 threads on one key also took turns
     * for), and the keys kept idle stay few whatever the number of keys ever locked. The one it replaces there
     * leaves the map if it is still idle.
     */
    private static final class Idle {
        private final LockKey key;
        private final Holders holders;

        Idle(LockKey key, Holders holders) {
            this.key = key;
            this.holders = holders;
        }
    }

    /** The state of a key that is leaving the map for good. */
    private static final Object GONE = new Object();

    /** The live holders of {@code chain}, with {@code change} applied to each; {@code null} if none is left. */
    private static Entry rebuild(Entry chain, long nowNanos, UnaryOperator<Entry> change) {
        if (chain == null) {
            return null;
        }
        Entry rest = rebuild(chain.next(), nowNanos, change);
        if (!chain.isLive(nowNanos)) {
            return rest;
        }
        Entry changed = change.apply(chain);
        return changed == null ? rest : changed.withNext(rest);
    }

    /**
     * {@code chain} as {@link #rebuild} makes it, as a new object whenever it differs from {@code chain}: a state
     * a key had before never comes back (see {@link Holders}).
     */
    private static Entry successor(Entry chain, long nowNanos, UnaryOperator<Entry> change) {
        Entry next = rebuild(chain, nowNanos, change);
        if (next != chain) {
            // the holders in front of it left: the rest is an object the key may have had as its chain before
            for (Entry e = chain.next(); e != null; e = e.next()) {
                if (e == next) {
                    return next.copy();
                }
            }
        }
        return next;
    }

    /** The first live holder in {@code chain} that {@code wanted} accepts, or {@code null}. */
    private static Entry first(Entry chain, Predicate<Entry> wanted, long nowNanos) {
        for (Entry e = chain; e != null; e = e.next()) {
            if (e.isLive(nowNanos) && wanted.test(e)) {
                return e;
            }
        }
        return null;
    }

    /** A store on the JVM's clocks. */
    public InMemoryLockStore() {
        this(TimeSource.system());
    }

    public InMemoryLockStore(TimeSource time) {
        Require.notNull(time, "time source");
        this.time = time;
        this.anchor = time.now();
        this.anchorNanos = time.nanoTime();
    }

    /**
     * The wall-clock millisecond of the lease clock's reading {@code nanos}. Stamps are for display (as
     * {@link TimeSource#now()} is); they keep the lease clock's pace, so a step of the system clock after this store
     * was made does not show in them, and a lock time and its expiry are exactly the lease apart.
     */
    private long wallMillis(long nanos) {
        return anchor.toEpochMilli() + Math.floorDiv(nanos - anchorNanos + anchor.getNano() % 1_000_000, 1_000_000);
    }

    private LockRecord recordOf(Entry entry) {
        return new LockRecord(entry.handle(), entry.nodeId(), entry.threadName(),
                Instant.ofEpochMilli(wallMillis(entry.lockNanos())), Instant.ofEpochMilli(wallMillis(entry.expiresAtNanos())),
                entry.aborted() ? LockStatus.ABORT : LockStatus.RUNNING, entry.fencingToken(), entry.lockMode());
    }

    @Override
    public void initialize() {
        // nothing to create
    }

    @Override
    public AcquireResult acquire(LockRequest request, Duration lease) {
        long now = time.nanoTime();
        LockMode mode = request.mode();
        LockHandle handle = request.handle();
        while (true) {
            Holders holders = holdersOf(request.key());
            Object state = holders.state();
            if (state == GONE) {
                records.remove(request.key(), holders);
                continue;
            }
            Entry chain = Holders.chainIn(state);
            boolean expired = false;
            for (Entry e = chain; e != null; e = e.next()) {
                if (!e.isLive(now)) {
                    expired = true;
                } else if (e.handle().equals(handle)) {
                    // the SPI's rule for retried writes: our own record is ours, never "held by someone else"
                    return AcquireResult.acquired(recordOf(e));
                } else if (e.lockMode().conflictsWith(mode)) {
                    return AcquireResult.heldBy(recordOf(e));
                }
            }
            // rebuilt only when a holder expired: else the chain stays as it is, and the walk above was the only one
            Entry live = expired ? successor(chain, now, UnaryOperator.identity()) : chain;
            Entry mine = new Entry(handle, request.nodeId(), request.threadName(), now, now + lease.toNanos(),
                    fencingTokens.incrementAndGet(), false, (byte) mode.ordinal(), live);
            if (holders.replace(state, mine)) {
                return AcquireResult.acquired(recordOf(mine));
            }
        }
    }

    /** The holders of {@code key}, a new empty one if it has none. */
    private Holders holdersOf(LockKey key) {
        Holders holders = records.get(key);
        if (holders != null) {
            return holders;
        }
        Holders fresh = new Holders();
        Holders raced = records.putIfAbsent(key, fresh);
        return raced != null ? raced : fresh;
    }

    /** The chain of {@code key}'s holders, live or not; {@code null} if it has none. */
    private Entry chainOf(LockKey key) {
        Holders holders = records.get(key);
        return holders == null ? null : holders.chain();
    }

    /**
     * Replaces the live holders of {@code key} by {@code change} applied to each, as long as one of them is
     * {@code concerned}: the first such holder, as it was before, or {@code null} if there is none (then nothing
     * changed). A key left without holders becomes {@link Idle}.
     */
    private Entry update(LockKey key, Predicate<Entry> concerned, UnaryOperator<Entry> change) {
        Holders holders = records.get(key);
        if (holders == null) {
            return null;
        }
        long now = time.nanoTime();
        while (true) {
            Entry chain = holders.chain();
            Entry concernedHolder = first(chain, concerned, now);
            if (concernedHolder == null) {
                return null;
            }
            Entry next = successor(chain, now, change);
            Object nextState = next != null ? next : new Idle(key, holders);
            if (holders.replace(chain, nextState)) {
                if (nextState instanceof Idle idle) {
                    keepIdle(idle);
                }
                return concernedHolder;
            }
        }
    }

    /** Puts {@code idle} among the recently idle, and the key whose idle state it replaces there out of the map. */
    private void keepIdle(Idle idle) {
        Idle replaced = recentlyIdle.getAndSet(ThreadLocalRandom.current().nextInt(KEPT_IDLE), idle);
        if (replaced != null && replaced.holders.state() == replaced) {
            takeOut(replaced.key, replaced.holders, replaced);
        }
    }

    /** Takes a key whose state is {@code idle} out of the map; {@code false} if its state changed meanwhile. */
    private boolean takeOut(LockKey key, Holders holders, Object idle) {
        return holders.replace(idle, GONE) && records.remove(key, holders);
    }

    @Override
    public Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) {
        Map<LockHandle, HoldState> answers = new LinkedHashMap<>();
        for (LockHandle handle : handles) {
            long until = time.nanoTime() + lease.toNanos();
            Predicate<Entry> own = holding(handle);
            Entry renewed = update(handle.key(), own, e -> own.test(e) ? e.renewedUntil(until) : e);
            answers.put(handle, renewed != null ? stateOf(renewed) : HoldState.LOST);
        }
        return answers;
    }

    @Override
    public Map<LockHandle, HoldState> check(List<LockHandle> handles) {
        Map<LockHandle, HoldState> answers = new LinkedHashMap<>();
        long now = time.nanoTime();
        for (LockHandle handle : handles) {
            Entry own = first(chainOf(handle.key()), holding(handle), now);
            answers.put(handle, own != null ? stateOf(own) : HoldState.LOST);
        }
        return answers;
    }

    private static HoldState stateOf(Entry entry) {
        return HoldState.of(true, entry.aborted());
    }

    @Override
    public boolean release(LockHandle handle) {
        Predicate<Entry> own = holding(handle);
        return update(handle.key(), own, e -> own.test(e) ? null : e) != null;
    }

    private static Predicate<Entry> holding(LockHandle handle) {
        return e -> e.handle().equals(handle);
    }

    @Override
    public Optional<LockRecord> read(LockKey key) {
        Entry live = rebuild(chainOf(key), time.nanoTime(), UnaryOperator.identity());
        return live != null ? Optional.of(recordOf(live)) : Optional.empty();
    }

    @Override
    public List<LockRecord> list() {
        long now = time.nanoTime();
        purgeIdleRecords();
        List<LockRecord> live = new ArrayList<>(records.size());
        for (Holders holders : records.values()) {
            for (Entry e = holders.chain(); e != null; e = e.next()) {
                if (e.isLive(now)) {
                    live.add(recordOf(e));
                }
            }
        }
        return live;
    }

    @Override
    public boolean markAbort(LockKey key) {
        return update(key, e -> true, Entry::abortMarked) != null;
    }

    /**
     * Removes the keys without live holders: those whose holders expired, and those released lately and kept for
     * whoever takes them next (at most {@link #KEPT_IDLE}; older ones leave at once). Tokens come from one counter for
     * all keys.
     */
    @Override
    public int purgeIdleRecords() {
        long now = time.nanoTime();
        int purged = 0;
        for (Map.Entry<LockKey, Holders> record : records.entrySet()) {
            Holders holders = record.getValue();
            Object state = holders.state();
            Entry chain = Holders.chainIn(state);
            // a key whose holders object is new and empty is about to get its first holder: it stays
            boolean idle = state instanceof Idle
                    || chain != null && rebuild(chain, now, UnaryOperator.identity()) == null;
            if (state == GONE ? records.remove(record.getKey(), holders)
                    : idle && takeOut(record.getKey(), holders, state)) {
                purged++;
            }
        }
        return purged;
    }

    @Override
    public boolean supportsModes() {
        return true;
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
        return "InMemoryLockStore[" + records.size() + " keys]";
    }
}
