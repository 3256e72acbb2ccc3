package io.github.lockmanager.store.memory;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.function.Predicate;

/**
 * The holders of one key: its state replaced by compare-and-set, so that holders of one key in modes that share
 * it never wait for each other's turn on a lock (taking turns for the map's lock of the key, readers of one key
 * ran far slower than writers of distinct keys). The state is a chain of {@link HolderEntry}s while the
 * key is held, an {@link Idle} when its last holder left, {@link #GONE} for good when it leaves the map (a new holders
 * object comes next), and {@code null} only before its first holder; a key whose {@link LockMode#SHARED} holders
 * raced for its state has a {@link Striped} state from then on, and a {@link Closing} one while it is taken out.
 * Every state a key has is a new object, so that a state read before a compare-and-set is the key's state until
 * it succeeds: a fencing token taken between the two is above the token of every acquisition granted before it.
 */
final class KeyHolders {
    private static final AtomicReferenceFieldUpdater<KeyHolders, Object> STATE =
            AtomicReferenceFieldUpdater.newUpdater(KeyHolders.class, Object.class, "state");

    /** The state of a key that has left the map for good. */
    static final Object GONE = new Object();

    /** Stripes of a key's shared holders: a power of two, as many as a key's readers run at once on most machines. */
    static final int STRIPES = 8;
    /** Array slots from one stripe to the next: 16 references of 4 bytes, a 64-byte cache line. */
    static final int STRIPE_SPACING = 16;

    private volatile Object state;

    Object state() {
        return state;
    }

    boolean replace(Object expected, Object next) {
        return STATE.compareAndSet(this, expected, next);
    }

    /**
     * The state of a key whose shared holders raced for its state: its other holders (and shared ones that came
     * before) in a chain as any key keeps them, and its shared holders apart, in stripes, each on a cache line of its
     * own and found by the holder's handle. A shared holder joins or leaves its stripe by a compare-and-set there and
     * only reads the key's state: readers of one key then rarely write to one place (with one state that every
     * reader swapped, the cores took turns for its cache line).
     *
     * <p>A reader and a holder in a mode that conflicts with {@code SHARED} each write first and read the other's
     * place after, so at least one of the two sees the other: a reader joins its stripe, then checks that the key's
     * state is still the one it found free of conflicting holders, and leaves again if not; such a holder enters the
     * state, then looks through the stripes for live readers, and leaves again if it finds one. Its fencing token is
     * taken again after that look, so that it is above the token of every reader granted before its entry.
     */
    static final class Striped {
        final HolderEntry chain;
        final AtomicReferenceArray<HolderEntry> readers;

        Striped(HolderEntry chain, AtomicReferenceArray<HolderEntry> readers) {
            this.chain = chain;
            this.readers = readers;
        }
    }

    /**
     * The state of a key with stripes while the store's purge takes it out: acquisitions wait until it is gone or
     * back. A reader that joined before it is found in the look through the stripes that follows, and the key stays.
     */
    static final class Closing {
        final AtomicReferenceArray<HolderEntry> readers;

        Closing(AtomicReferenceArray<HolderEntry> readers) {
            this.readers = readers;
        }
    }

    /**
     * The state of a key whose last holder left, a new one each time. The key keeps its place in the map while its
     * holders stand at the key's place among the {@link KeyTable#KEPT_IDLE} recently idle: a key taken again
     * and again then costs no map writes (a removal and an insertion per cycle, which 8 threads on one key also took
     * turns for), and the keys kept idle stay few whatever the number of keys ever locked. The holders it replaces
     * there leave the map if their key is idle.
     */
    static final class Idle {
        final LockKey key;

        Idle(LockKey key) {
            this.key = key;
        }
    }

    /** The chain of holders in {@code state}, live or not, apart from shared holders in stripes, or {@code null}. */
    static HolderEntry chainIn(Object state) {
        if (state instanceof HolderEntry chain) {
            return chain;
        }
        return state instanceof Striped striped ? striped.chain : null;
    }

    /** The stripes of shared holders of a key in {@code state}; {@code null} if it has none. */
    static AtomicReferenceArray<HolderEntry> readersIn(Object state) {
        if (state instanceof Striped striped) {
            return striped.readers;
        }
        return state instanceof Closing closing ? closing.readers : null;
    }

    /** Where a shared holder with {@code handle} sits among the stripes. */
    static int stripeOf(LockHandle handle) {
        int h = handle.hashCode();
        return ((h ^ (h >>> 16)) & (STRIPES - 1)) * STRIPE_SPACING;
    }

    /** The first live shared holder of a key with stripes {@code readers}, or {@code null}. */
    static HolderEntry firstReader(AtomicReferenceArray<HolderEntry> readers, Predicate<HolderEntry> wanted,
                                   long nowNanos) {
        for (int i = 0; i < STRIPES; i++) {
            HolderEntry found = HolderEntry.first(readers.get(i * STRIPE_SPACING), wanted, nowNanos);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    static boolean readerless(AtomicReferenceArray<HolderEntry> readers, long now) {
        return firstReader(readers, e -> true, now) == null;
    }

    /**
     * Gives the key stripes for its shared holders, after one of them lost a race for its state: readers of a key in
     * demand then stop taking turns for one place, and a key read by one thread at a time keeps its holders in its
     * chain, without the half kilobyte that stripes take.
     */
    void stripe() {
        Object current = state;
        if (current != GONE && !(current instanceof Striped) && !(current instanceof Closing)) {
            replace(current, new Striped(chainIn(current), new AtomicReferenceArray<>(STRIPES * STRIPE_SPACING)));
        }
    }

    /**
     * The entry of {@code handle} in a key's {@code state}, live or not, in its stripe or in the chain; or
     * {@code null}.
     */
    static HolderEntry anyEntryOf(Object state, LockHandle handle) {
        AtomicReferenceArray<HolderEntry> readers = readersIn(state);
        HolderEntry own = readers != null ? HolderEntry.entryIn(readers.get(stripeOf(handle)), handle) : null;
        return own != null ? own : HolderEntry.entryIn(chainIn(state), handle);
    }
}
