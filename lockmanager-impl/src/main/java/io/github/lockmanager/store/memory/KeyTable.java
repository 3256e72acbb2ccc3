package io.github.lockmanager.store.memory;

import io.github.lockmanager.TimeSource;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.store.memory.KeyHolders.Closing;
import io.github.lockmanager.store.memory.KeyHolders.Idle;
import io.github.lockmanager.store.memory.KeyHolders.Striped;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

import static io.github.lockmanager.store.memory.HolderEntry.first;
import static io.github.lockmanager.store.memory.HolderEntry.successor;
import static io.github.lockmanager.store.memory.KeyHolders.GONE;
import static io.github.lockmanager.store.memory.KeyHolders.chainIn;
import static io.github.lockmanager.store.memory.KeyHolders.firstReader;
import static io.github.lockmanager.store.memory.KeyHolders.readerless;
import static io.github.lockmanager.store.memory.KeyHolders.readersIn;
import static io.github.lockmanager.store.memory.KeyHolders.stripeOf;

/**
 * The keys of the in-memory store and their {@link KeyHolders}: finding them, changing a key's holders, keeping the
 * keys that became idle lately in place, and taking keys out. Thread-safe, lock-free.
 */
final class KeyTable {
    /** How many keys whose last holder left keep their place in the map at most, for whoever takes them next. */
    static final int KEPT_IDLE = 1024;

    private final TimeSource time;
    private final Map<LockKey, KeyHolders> records = new ConcurrentHashMap<>();
    /** The holders of keys that became idle lately, each at its key's place; see {@link Idle}. */
    private final AtomicReferenceArray<KeyHolders> recentlyIdle = new AtomicReferenceArray<>(KEPT_IDLE);

    KeyTable(TimeSource time) {
        this.time = time;
    }

    KeyHolders get(LockKey key) {
        return records.get(key);
    }

    /** Takes {@code holders}, whose state is {@link KeyHolders#GONE}, out of the map if they are still there. */
    void remove(LockKey key, KeyHolders holders) {
        records.remove(key, holders);
    }

    int size() {
        return records.size();
    }

    Collection<KeyHolders> all() {
        return records.values();
    }

    /** The holders of {@code key}, a new empty one if it has none. */
    KeyHolders holdersOf(LockKey key) {
        KeyHolders holders = records.get(key);
        if (holders != null) {
            return holders;
        }
        KeyHolders fresh = new KeyHolders();
        KeyHolders raced = records.putIfAbsent(key, fresh);
        return raced != null ? raced : fresh;
    }

    /** The first live holder of {@code key} that {@code wanted} accepts, shared holders last; {@code null} if none. */
    HolderEntry firstHolder(LockKey key, Predicate<HolderEntry> wanted, long now) {
        KeyHolders holders = records.get(key);
        if (holders == null) {
            return null;
        }
        Object state = holders.state();
        HolderEntry found = first(chainIn(state), wanted, now);
        AtomicReferenceArray<HolderEntry> readers = readersIn(state);
        return found != null || readers == null ? found : firstReader(readers, wanted, now);
    }

    /**
     * Replaces the live holders of {@code key} by {@code change} applied to each, as long as one of them is
     * {@code concerned}: the first such holder, as it was before, or {@code null} if there is none (then nothing
     * changed). A holder with {@code handle} is looked for first in its stripe, where a shared holder sits.
     */
    HolderEntry update(LockKey key, LockHandle handle, Predicate<HolderEntry> concerned,
                       UnaryOperator<HolderEntry> change, long now) {
        KeyHolders holders = records.get(key);
        return holders != null ? update(key, holders, handle, concerned, change, now) : null;
    }

    /** {@link #update(LockKey, LockHandle, Predicate, UnaryOperator, long)} of the key's {@code holders}. */
    HolderEntry update(LockKey key, KeyHolders holders, LockHandle handle, Predicate<HolderEntry> concerned,
                       UnaryOperator<HolderEntry> change, long now) {
        AtomicReferenceArray<HolderEntry> readers = readersIn(holders.state());
        if (readers != null) {
            HolderEntry reader = updateStripe(readers, stripeOf(handle), concerned, change, now);
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
    HolderEntry update(LockKey key, KeyHolders holders, Predicate<HolderEntry> concerned,
                       UnaryOperator<HolderEntry> change, long now) {
        while (true) {
            Object state = holders.state();
            HolderEntry chain = chainIn(state);
            HolderEntry concernedHolder = first(chain, concerned, now);
            if (concernedHolder == null) {
                return null;
            }
            HolderEntry next = successor(chain, now, change);
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
    HolderEntry updateStripe(AtomicReferenceArray<HolderEntry> readers, int stripe, Predicate<HolderEntry> concerned,
                             UnaryOperator<HolderEntry> change, long now) {
        while (true) {
            HolderEntry chain = readers.get(stripe);
            HolderEntry concernedHolder = first(chain, concerned, now);
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
    private void keepIdle(LockKey key, KeyHolders holders) {
        int h = key.hashCode();
        int place = (h ^ (h >>> 16)) & (KEPT_IDLE - 1);
        if (recentlyIdle.get(place) == holders) {
            return;
        }
        KeyHolders replaced = recentlyIdle.getAndSet(place, holders);
        if (replaced != null && replaced != holders && replaced.state() instanceof Idle idle) {
            takeOut(idle.key, replaced, idle);
        }
    }

    /**
     * Takes a key with stripes out of the map, its state {@code striped} having no live holder: {@code false} if its
     * state changed meanwhile, or a reader joined before it was {@link Closing} (see {@link Striped}).
     */
    private boolean close(LockKey key, KeyHolders holders, Object striped, AtomicReferenceArray<HolderEntry> readers) {
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
    private boolean takeOut(LockKey key, KeyHolders holders, Object idle) {
        return holders.replace(idle, GONE) && records.remove(key, holders);
    }

    /**
     * Removes the keys without live holders: those whose holders expired, and those released lately and kept for
     * whoever takes them next (at most {@link #KEPT_IDLE}; older ones leave at once).
     */
    int purge() {
        long now = time.nanoTime();
        int purged = 0;
        for (Map.Entry<LockKey, KeyHolders> record : records.entrySet()) {
            KeyHolders holders = record.getValue();
            Object state = holders.state();
            HolderEntry chain = chainIn(state);
            AtomicReferenceArray<HolderEntry> readers = readersIn(state);
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
}
