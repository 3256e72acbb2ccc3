package io.github.lockmanager.store.memory;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.LockHandle;

import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * One holder of a key, as compact as it can be kept (a held lock costs heap for as long as it is held): the
 * {@code LockRecord} a caller sees is made from it on demand ({@link WallStamps#recordOf}). The holders of one key
 * form an immutable chain through {@code next}, replaced as a whole in the key's {@link KeyHolders}; an exclusive key
 * has a chain of one. Its times are readings of the lease clock, the mode is a byte and a permit holder's number of
 * permits a short (0 in other modes): an entry fits in 56 bytes.
 * The static methods are the operations on chains, none of which changes one.
 */
record HolderEntry(LockHandle handle, String nodeId, String threadName, long lockNanos, long expiresAtNanos,
                   long fencingToken, boolean aborted, byte mode, short permits, HolderEntry next) {

    boolean isLive(long nowNanos) {
        return expiresAtNanos - nowNanos > 0;
    }

    LockMode lockMode() {
        return LockMode.ofCode(mode);
    }

    HolderEntry renewedUntil(long nanos) {
        return with(nanos, aborted, next);
    }

    HolderEntry abortMarked() {
        return with(expiresAtNanos, true, next);
    }

    HolderEntry copy() {
        return with(expiresAtNanos, aborted, next);
    }

    HolderEntry withToken(long token) {
        return new HolderEntry(handle, nodeId, threadName, lockNanos, expiresAtNanos, token, aborted, mode, permits, next);
    }

    HolderEntry withNext(HolderEntry next) {
        return next == this.next ? this : with(expiresAtNanos, aborted, next);
    }

    private HolderEntry with(long expiresAtNanos, boolean aborted, HolderEntry next) {
        return new HolderEntry(handle, nodeId, threadName, lockNanos, expiresAtNanos, fencingToken, aborted, mode,
                permits, next);
    }

    /** The live holders of {@code chain}, with {@code change} applied to each; {@code null} if none is left. */
    static HolderEntry rebuild(HolderEntry chain, long nowNanos, UnaryOperator<HolderEntry> change) {
        if (chain == null) {
            return null;
        }
        HolderEntry rest = rebuild(chain.next(), nowNanos, change);
        if (!chain.isLive(nowNanos)) {
            return rest;
        }
        HolderEntry changed = change.apply(chain);
        return changed == null ? rest : changed.withNext(rest);
    }

    /**
     * {@code chain} as {@link #rebuild} makes it, as a new object whenever it differs from {@code chain}: a state
     * a key had before never comes back (see {@link KeyHolders}).
     */
    static HolderEntry successor(HolderEntry chain, long nowNanos, UnaryOperator<HolderEntry> change) {
        HolderEntry next = rebuild(chain, nowNanos, change);
        if (next != chain) {
            // the holders in front of it left: the rest is an object the key may have had as its chain before
            for (HolderEntry e = chain.next(); e != null; e = e.next()) {
                if (e == next) {
                    return next.copy();
                }
            }
        }
        return next;
    }

    /** The first live holder in {@code chain} that {@code wanted} accepts, or {@code null}. */
    static HolderEntry first(HolderEntry chain, Predicate<HolderEntry> wanted, long nowNanos) {
        for (HolderEntry e = chain; e != null; e = e.next()) {
            if (e.isLive(nowNanos) && wanted.test(e)) {
                return e;
            }
        }
        return null;
    }

    /** The entry of {@code handle} in {@code chain}, live or not, or {@code null}. */
    static HolderEntry entryIn(HolderEntry chain, LockHandle handle) {
        for (HolderEntry e = chain; e != null; e = e.next()) {
            if (e.handle().equals(handle)) {
                return e;
            }
        }
        return null;
    }

    static Predicate<HolderEntry> holding(LockHandle handle) {
        return e -> e.handle().equals(handle);
    }

    /**
     * The holder with {@code handle} leaving: the test that finds it, and the change that takes it out of a chain and
     * leaves the others as they are, in one object.
     */
    record Leaving(LockHandle handle) implements Predicate<HolderEntry>, UnaryOperator<HolderEntry> {
        @Override
        public boolean test(HolderEntry entry) {
            return entry.handle().equals(handle);
        }

        @Override
        public HolderEntry apply(HolderEntry entry) {
            return test(entry) ? null : entry;
        }
    }
}
