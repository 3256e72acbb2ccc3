package io.github.lockmanager.store.memory;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.internal.Require;
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
 *
 * <p>A lock and its release cost one clock reading, the manager's: an acquisition is judged at the reading it was
 * sent with ({@link #acquire(LockRequest, Duration, long)}), and a release reads no clock at all. It takes out the
 * holder's own entry, also one whose lease ran out while nobody took the key (that answers {@code true}, where a
 * store that expires records itself answers {@code false}): either way no one else's hold is touched.
 */
public final class InMemoryLockStore implements LockStore {
    private final TimeSource time;
    /**
     * The wall clock read once, as its millisecond and the lease clock's reading at that millisecond's start: records
     * are stamped from lease-clock readings (see {@link #wallMillis}), so a grant reads one clock, not two, and an
     * entry keeps no wall-clock times of its own.
     */
    private final long anchorMillis;
    private final long anchorMillisNanos;
    /**
     * The last lock time and expiry stamped, reused by records stamped in the same millisecond: a grant's record is
     * made on every acquisition, and making its two {@link Instant}s anew took about 6% of an in-memory lock+unlock.
     * Read and written without synchronization: a {@link Stamp} is immutable, so a thread sees one or another whole.
     */
    private Stamp lockStamp = Stamp.NONE;
    private Stamp expiryStamp = Stamp.NONE;
    private final Map<LockKey, Holders> records = new ConcurrentHashMap<>();
    private final AtomicLong fencingTokens = new AtomicLong();
    /** The holders of keys that became idle lately, each at its key's place; see {@link Idle}. */
    private final AtomicReferenceArray<Holders> recentlyIdle = new AtomicReferenceArray<>(KEPT_IDLE);

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

        Entry withToken(long token) {
            return new Entry(handle, nodeId, threadName, lockNanos, expiresAtNanos, token, aborted, mode, next);
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
     * object comes next), and {@code null} only before its first holder; a key whose {@link LockMode#SHARED} holders
     * raced for its state has a {@link Striped} state from then on, and a {@link Closing} one while it is taken out.
     * Every state a key has is a new object, so that a state read before a compare-and-set is the key's state until
     * it succeeds: a fencing token taken between the two is above the token of every acquisition granted before it.
     */
    private static final class Holders {
        private static final AtomicReferenceFieldUpdater<Holders, Object> STATE =
                AtomicReferenceFieldUpdater.newUpdater(Holders.class, Object.class, "state");

        private volatile Object state;

        Object state() {
            return state;
        }

        boolean replace(Object expected, Object next) {
            return STATE.compareAndSet(this, expected, next);
        }
    }

    /**
     * The state of a key whose shared holders raced for its state: its other holders (and shared ones that came
     * before) in a chain as any key keeps them, and its shared holders apart, in stripes, each on a cache line of its
     * own and found by the holder's handle. A shared holder joins or leaves its stripe by a compare-and-set there and
     * only reads the key's state: readers of one key then rarely write to one place (one state that every reader
     * swapped ran 8 readers of one key at half the rate of 8 writers of distinct keys, the two cores taking turns for
     * its cache line).
     *
     * <p>A reader and a holder in a mode that conflicts with {@code SHARED} each write first and read the other's
     * place after, so at least one of the two sees the other: a reader joins its stripe, then checks that the key's
     * state is still the one it found free of conflicting holders, and leaves again if not; such a holder enters the
     * state, then looks through the stripes for live readers, and leaves again if it finds one. Its fencing token is
     * taken again after that look, so that it is above the token of every reader granted before its entry.
     */
    private static final class Striped {
        private final Entry chain;
        private final AtomicReferenceArray<Entry> readers;

        Striped(Entry chain, AtomicReferenceArray<Entry> readers) {
            this.chain = chain;
            this.readers = readers;
        }
    }

    /**
     * The state of a key with stripes while {@link #purgeIdleRecords} takes it out: acquisitions wait until it is
     * gone or back. A reader that joined before it is found in the look through the stripes that follows, and the key
     * stays.
     */
    private static final class Closing {
        private final AtomicReferenceArray<Entry> readers;

        Closing(AtomicReferenceArray<Entry> readers) {
            this.readers = readers;
        }
    }

    /** Stripes of a key's shared holders: a power of two, as many as a key's readers run at once on most machines. */
    private static final int STRIPES = 8;
    /** Array slots from one stripe to the next: 16 references of 4 bytes, a 64-byte cache line. */
    private static final int STRIPE_SPACING = 16;

    /** The chain of holders in {@code state}, live or not, apart from shared holders in stripes; {@code null} if none. */
    private static Entry chainIn(Object state) {
        if (state instanceof Entry chain) {
            return chain;
        }
        return state instanceof Striped striped ? striped.chain : null;
    }

    /** The stripes of shared holders of a key in {@code state}; {@code null} if it has none. */
    private static AtomicReferenceArray<Entry> readersIn(Object state) {
        if (state instanceof Striped striped) {
            return striped.readers;
        }
        return state instanceof Closing closing ? closing.readers : null;
    }

    /** Where a shared holder with {@code handle} sits among the stripes. */
    private static int stripeOf(LockHandle handle) {
        int h = handle.hashCode();
        return ((h ^ (h >>> 16)) & (STRIPES - 1)) * STRIPE_SPACING;
    }

    /** The first live shared holder of a key with stripes {@code readers}, or {@code null}. */
    private static Entry firstReader(AtomicReferenceArray<Entry> readers, Predicate<Entry> wanted, long nowNanos) {
        for (int i = 0; i < STRIPES; i++) {
            Entry found = first(readers.get(i * STRIPE_SPACING), wanted, nowNanos);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    /**
     * The state of a key whose last holder left, a new one each time. The key keeps its place in the map while its
     * holders stand at the key's place among the {@link #KEPT_IDLE} recently idle: a key taken again and again then
     * costs no map writes (a removal and an insertion per cycle, which 8 threads on one key also took turns for), and
     * the keys kept idle stay few whatever the number of keys ever locked. The holders it replaces there leave the map
     * if their key is idle.
     */
    private static final class Idle {
        private final LockKey key;

        Idle(LockKey key) {
            this.key = key;
        }
    }

    /** The state of a key that has left the map for good. */
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
        Instant anchor = time.now();
        this.anchorMillis = anchor.toEpochMilli();
        this.anchorMillisNanos = time.nanoTime() - anchor.getNano() % 1_000_000;
    }

    /**
     * The wall-clock millisecond of the lease clock's reading {@code nanos}. Stamps are for display (as
     * {@link TimeSource#now()} is); they keep the lease clock's pace, so a step of the system clock after this store
     * was made does not show in them, and a lock time and its expiry are exactly the lease apart.
     */
    private long wallMillis(long nanos) {
        return anchorMillis + Math.floorDiv(nanos - anchorMillisNanos, 1_000_000);
    }

    /** A wall-clock millisecond and its {@link Instant}. */
    private record Stamp(long millis, Instant instant) {
        static final Stamp NONE = new Stamp(Long.MIN_VALUE, Instant.MIN);

        /** This stamp if it is of {@code millis}, else a new one. */
        Stamp of(long millis) {
            return millis == this.millis ? this : new Stamp(millis, Instant.ofEpochMilli(millis));
        }
    }

    private LockRecord recordOf(Entry entry) {
        Stamp lastLock = lockStamp;
        Stamp lock = lastLock.of(wallMillis(entry.lockNanos()));
        Stamp lastExpiry = expiryStamp;
        Stamp expiry = lastExpiry.of(wallMillis(entry.expiresAtNanos()));
        // written only when they change: threads on several cores would otherwise share the line on every grant
        if (lock != lastLock) {
            lockStamp = lock;
        }
        if (expiry != lastExpiry) {
            expiryStamp = expiry;
        }
        return new LockRecord(entry.handle(), entry.nodeId(), entry.threadName(), lock.instant(), expiry.instant(),
                entry.aborted() ? LockStatus.ABORT : LockStatus.RUNNING, entry.fencingToken(), entry.lockMode());
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
            Holders holders = holdersOf(request.key());
            Object state = holders.state();
            if (state == GONE) {
                records.remove(request.key(), holders);
                continue;
            }
            if (state instanceof Closing) {
                Thread.onSpinWait();
                continue;
            }
            Entry chain = chainIn(state);
            boolean expired = false;
            boolean handedOver = false;
            for (Entry e = chain; e != null; e = e.next()) {
                if (!e.isLive(now)) {
                    expired = true;
                } else if (e.handle().equals(handle)) {
                    // the SPI's rule for retried writes: our own record is ours, never "held by someone else"
                    return AcquireResult.acquired(recordOf(e));
                } else if (e.handle().equals(predecessor)) {
                    handedOver = true;
                } else if (e.lockMode().conflictsWith(mode)) {
                    return AcquireResult.heldBy(recordOf(e));
                }
            }
            AtomicReferenceArray<Entry> readers = readersIn(state);
            if (mode == LockMode.SHARED && readers != null) {
                AcquireResult joined = joinReaders(holders, state, readers, request, now, lease);
                if (joined != null) {
                    return joined;
                }
                continue;
            }
            // rebuilt only when a holder expired: else the chain stays as it is, and the walk above was the only one
            Entry live = handedOver ? successor(chain, now, new Leaving(predecessor))
                    : expired ? successor(chain, now, UnaryOperator.identity()) : chain;
            Entry mine = new Entry(handle, request.nodeId(), request.threadName(), now, now + lease.toNanos(),
                    fencingTokens.incrementAndGet(), false, (byte) mode.ordinal(), live);
            if (!holders.replace(state, readers == null ? mine : new Striped(mine, readers))) {
                if (mode == LockMode.SHARED) {
                    stripe(holders);
                }
                continue;
            }
            return readers != null && mode.conflictsWith(LockMode.SHARED)
                    ? excludeReaders(request.key(), holders, readers, mine) : AcquireResult.acquired(recordOf(mine));
        }
    }

    /**
     * Gives a key stripes for its shared holders, after one of them lost a race for its state: readers of a key in
     * demand then stop taking turns for one place, and a key read by one thread at a time keeps its holders in its
     * chain, without the half kilobyte that stripes take.
     */
    private static void stripe(Holders holders) {
        Object state = holders.state();
        if (state != GONE && !(state instanceof Striped) && !(state instanceof Closing)) {
            holders.replace(state, new Striped(chainIn(state), new AtomicReferenceArray<>(STRIPES * STRIPE_SPACING)));
        }
    }

    /**
     * Adds a shared holder to a key found in {@code state}, which has no live holder in conflict with it (see
     * {@link Striped}); {@code null} if the state changed meanwhile, to be tried again.
     */
    private AcquireResult joinReaders(Holders holders, Object state, AtomicReferenceArray<Entry> readers,
                                      LockRequest request, long now, Duration lease) {
        LockHandle handle = request.handle();
        int stripe = stripeOf(handle);
        while (true) {
            Entry others = readers.get(stripe);
            boolean expired = false;
            for (Entry e = others; e != null; e = e.next()) {
                if (!e.isLive(now)) {
                    expired = true;
                } else if (e.handle().equals(handle)) {
                    return AcquireResult.acquired(recordOf(e));
                }
            }
            Entry live = expired ? successor(others, now, UnaryOperator.identity()) : others;
            Entry mine = new Entry(handle, request.nodeId(), request.threadName(), now, now + lease.toNanos(),
                    fencingTokens.incrementAndGet(), false, (byte) LockMode.SHARED.ordinal(), live);
            if (readers.compareAndSet(stripe, others, mine)) {
                if (holders.state() == state) {
                    return AcquireResult.acquired(recordOf(mine));
                }
                Leaving leaving = new Leaving(handle);
                updateStripe(readers, stripe, leaving, leaving, now);
                return null;
            }
        }
    }

    /**
     * Completes the acquisition of {@code mine}, just entered into a key with shared holders in a mode that conflicts
     * with theirs: refused and taken out again if a live one is there, else granted with a token taken now.
     */
    private AcquireResult excludeReaders(LockKey key, Holders holders, AtomicReferenceArray<Entry> readers, Entry mine) {
        Predicate<Entry> own = holding(mine.handle());
        long now = time.nanoTime();
        Entry reader = firstReader(readers, e -> true, now);
        if (reader != null) {
            Leaving leaving = new Leaving(mine.handle());
            update(key, holders, leaving, leaving, now);
            return AcquireResult.heldBy(recordOf(reader));
        }
        long token = fencingTokens.incrementAndGet();
        Entry entered = update(key, holders, own, e -> own.test(e) ? e.withToken(token) : e, now);
        // null only if its lease ended meanwhile: it holds nothing, and no holder is to be named
        return entered != null ? AcquireResult.acquired(recordOf(entered.withToken(token))) : AcquireResult.heldBy(null);
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

    /** The first live holder of {@code key} that {@code wanted} accepts, shared holders last; {@code null} if none. */
    private Entry firstHolder(LockKey key, Predicate<Entry> wanted, long now) {
        Holders holders = records.get(key);
        if (holders == null) {
            return null;
        }
        Object state = holders.state();
        Entry found = first(chainIn(state), wanted, now);
        AtomicReferenceArray<Entry> readers = readersIn(state);
        return found != null || readers == null ? found : firstReader(readers, wanted, now);
    }

    /**
     * Replaces the live holders of {@code key} by {@code change} applied to each, as long as one of them is
     * {@code concerned}: the first such holder, as it was before, or {@code null} if there is none (then nothing
     * changed). A holder with {@code handle} is looked for first in its stripe, where a shared holder sits.
     */
    private Entry update(LockKey key, LockHandle handle, Predicate<Entry> concerned, UnaryOperator<Entry> change,
                         long now) {
        Holders holders = records.get(key);
        return holders != null ? update(key, holders, handle, concerned, change, now) : null;
    }

    /** {@link #update(LockKey, LockHandle, Predicate, UnaryOperator, long)} of the key's {@code holders}. */
    private Entry update(LockKey key, Holders holders, LockHandle handle, Predicate<Entry> concerned,
                         UnaryOperator<Entry> change, long now) {
        AtomicReferenceArray<Entry> readers = readersIn(holders.state());
        if (readers != null) {
            Entry reader = updateStripe(readers, stripeOf(handle), concerned, change, now);
            if (reader != null) {
                return reader;
            }
        }
        return update(key, holders, concerned, change, now);
    }

    /**
     * {@link #update} of the holders in the key's state, apart from those in stripes. A key without stripes that is
     * left without holders becomes {@link Idle}.
     */
    private Entry update(LockKey key, Holders holders, Predicate<Entry> concerned, UnaryOperator<Entry> change,
                         long now) {
        while (true) {
            Object state = holders.state();
            Entry chain = chainIn(state);
            Entry concernedHolder = first(chain, concerned, now);
            if (concernedHolder == null) {
                return null;
            }
            Entry next = successor(chain, now, change);
            Object nextState = state instanceof Striped striped ? new Striped(next, striped.readers)
                    : next != null ? next : new Idle(key);
            if (holders.replace(state, nextState)) {
                if (nextState instanceof Idle) {
                    keepIdle(key, holders);
                }
                return concernedHolder;
            }
        }
    }

    /** {@link #update} of the shared holders in one stripe. */
    private Entry updateStripe(AtomicReferenceArray<Entry> readers, int stripe, Predicate<Entry> concerned,
                               UnaryOperator<Entry> change, long now) {
        while (true) {
            Entry chain = readers.get(stripe);
            Entry concernedHolder = first(chain, concerned, now);
            if (concernedHolder == null) {
                return null;
            }
            if (readers.compareAndSet(stripe, chain, successor(chain, now, change))) {
                return concernedHolder;
            }
        }
    }

    /**
     * Puts the holders of {@code key}, just made idle, at the key's place among the recently idle unless they stand
     * there already (a key taken again and again then writes there once), and the key of those it replaces out of the
     * map if it is idle. The state was set before the place is read, and a replacer sets the place before it reads the
     * state, so when the holders are pushed out meanwhile, either this sees it and puts them back, or the replacer
     * sees the key idle and takes it out.
     */
    private void keepIdle(LockKey key, Holders holders) {
        int h = key.hashCode();
        int place = (h ^ (h >>> 16)) & (KEPT_IDLE - 1);
        if (recentlyIdle.get(place) == holders) {
            return;
        }
        Holders replaced = recentlyIdle.getAndSet(place, holders);
        if (replaced != null && replaced != holders && replaced.state() instanceof Idle idle) {
            takeOut(idle.key, replaced, idle);
        }
    }

    private static boolean readerless(AtomicReferenceArray<Entry> readers, long now) {
        return firstReader(readers, e -> true, now) == null;
    }

    /**
     * Takes a key with stripes out of the map, its state {@code striped} having no live holder: {@code false} if its
     * state changed meanwhile, or a reader joined before it was {@link Closing} (see {@link Striped}).
     */
    private boolean close(LockKey key, Holders holders, Object striped, AtomicReferenceArray<Entry> readers) {
        Closing closing = new Closing(readers);
        if (!holders.replace(striped, closing)) {
            return false;
        }
        if (!readerless(readers, time.nanoTime())) {
            holders.replace(closing, new Striped(null, readers));
            return false;
        }
        return takeOut(key, holders, closing);
    }

    /** Takes a key whose state is {@code idle} out of the map; {@code false} if its state changed meanwhile. */
    private boolean takeOut(LockKey key, Holders holders, Object idle) {
        return holders.replace(idle, GONE) && records.remove(key, holders);
    }

    @Override
    public Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) {
        Map<LockHandle, HoldState> answers = new LinkedHashMap<>();
        for (LockHandle handle : handles) {
            long now = time.nanoTime();
            long until = now + lease.toNanos();
            Predicate<Entry> own = holding(handle);
            Entry renewed = update(handle.key(), handle, own, e -> own.test(e) ? e.renewedUntil(until) : e, now);
            answers.put(handle, renewed != null ? stateOf(renewed) : HoldState.LOST);
        }
        return answers;
    }

    @Override
    public Map<LockHandle, HoldState> check(List<LockHandle> handles) {
        Map<LockHandle, HoldState> answers = new LinkedHashMap<>();
        long now = time.nanoTime();
        for (LockHandle handle : handles) {
            Entry own = firstHolder(handle.key(), holding(handle), now);
            answers.put(handle, own != null ? stateOf(own) : HoldState.LOST);
        }
        return answers;
    }

    private static HoldState stateOf(Entry entry) {
        return HoldState.of(true, entry.aborted());
    }

    @Override
    public boolean release(LockHandle handle) {
        Holders holders = records.get(handle.key());
        Entry own = holders != null ? anyEntryOf(holders.state(), handle) : null;
        if (own == null) {
            return false;
        }
        // judged at the holder's own lock time, not at a clock reading: its entry is live then, and a holder expired
        // by then is expired now. An entry of ours whose lease ran out since, which nobody has taken the key from,
        // is taken out too: that touches no one else's hold
        Leaving leaving = new Leaving(handle);
        return update(handle.key(), holders, handle, leaving, leaving, own.lockNanos()) != null;
    }

    /**
     * The entry of {@code handle} in a key's {@code state}, live or not, in its stripe or in the chain; or
     * {@code null}.
     */
    private static Entry anyEntryOf(Object state, LockHandle handle) {
        AtomicReferenceArray<Entry> readers = readersIn(state);
        Entry own = readers != null ? entryIn(readers.get(stripeOf(handle)), handle) : null;
        return own != null ? own : entryIn(chainIn(state), handle);
    }

    private static Entry entryIn(Entry chain, LockHandle handle) {
        for (Entry e = chain; e != null; e = e.next()) {
            if (e.handle().equals(handle)) {
                return e;
            }
        }
        return null;
    }

    private static Predicate<Entry> holding(LockHandle handle) {
        return e -> e.handle().equals(handle);
    }

    /**
     * The holder with {@code handle} leaving: the test that finds it, and the change that takes it out of a chain and
     * leaves the others as they are, in one object.
     */
    private record Leaving(LockHandle handle) implements Predicate<Entry>, UnaryOperator<Entry> {
        @Override
        public boolean test(Entry entry) {
            return entry.handle().equals(handle);
        }

        @Override
        public Entry apply(Entry entry) {
            return test(entry) ? null : entry;
        }
    }

    @Override
    public Optional<LockRecord> read(LockKey key) {
        Entry live = firstHolder(key, e -> true, time.nanoTime());
        return live != null ? Optional.of(recordOf(live)) : Optional.empty();
    }

    @Override
    public List<LockRecord> list() {
        long now = time.nanoTime();
        purgeIdleRecords();
        List<LockRecord> live = new ArrayList<>(records.size());
        for (Holders holders : records.values()) {
            Object state = holders.state();
            addLive(chainIn(state), now, live);
            AtomicReferenceArray<Entry> readers = readersIn(state);
            for (int i = 0; readers != null && i < STRIPES; i++) {
                addLive(readers.get(i * STRIPE_SPACING), now, live);
            }
        }
        return live;
    }

    private void addLive(Entry chain, long now, List<LockRecord> live) {
        for (Entry e = chain; e != null; e = e.next()) {
            if (e.isLive(now)) {
                live.add(recordOf(e));
            }
        }
    }

    @Override
    public boolean markAbort(LockKey key) {
        Holders holders = records.get(key);
        if (holders == null) {
            return false;
        }
        long now = time.nanoTime();
        boolean marked = update(key, holders, e -> true, Entry::abortMarked, now) != null;
        AtomicReferenceArray<Entry> readers = readersIn(holders.state());
        for (int i = 0; readers != null && i < STRIPES; i++) {
            marked |= updateStripe(readers, i * STRIPE_SPACING, e -> true, Entry::abortMarked, now) != null;
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
        long now = time.nanoTime();
        int purged = 0;
        for (Map.Entry<LockKey, Holders> record : records.entrySet()) {
            Holders holders = record.getValue();
            Object state = holders.state();
            Entry chain = chainIn(state);
            AtomicReferenceArray<Entry> readers = readersIn(state);
            boolean unheld = first(chain, e -> true, now) == null && (readers == null || readerless(readers, now));
            // a key whose holders object is new and empty is about to get its first holder: it stays
            boolean idle = state instanceof Idle || (chain != null || state instanceof Striped) && unheld;
            boolean takenOut = idle && (state instanceof Striped ? close(record.getKey(), holders, state, readers)
                    : takeOut(record.getKey(), holders, state));
            if (state == GONE ? records.remove(record.getKey(), holders) : takenOut) {
                purged++;
            }
        }
        return purged;
    }

    @Override
    public boolean supportsHandOff() {
        return true;
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
