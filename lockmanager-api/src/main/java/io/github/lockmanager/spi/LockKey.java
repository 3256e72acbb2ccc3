package io.github.lockmanager.spi;

import io.github.lockmanager.LockLevel;
import io.github.lockmanager.internal.Require;

import java.util.Objects;

/**
 * The full identity of a lock: level, farm (for {@link LockLevel#DC} only), client id and the caller's key.
 *
 * <p>{@link #storageKey()} is {@code DC#<farmId>#<clientId>#<key>} or {@code XDC#<clientId>#<key>}. It is
 * collision-free because farm and client ids may not contain {@code '#'} and the caller's key comes last: the
 * first separators after the level always end the farm and client id, whatever the key holds.
 */
public final class LockKey {
    /** The separator between the parts of {@link #storageKey()}; farm and client ids may not contain it. */
    public static final char SEPARATOR = '#';

    /**
     * Level, farm and client, shared by every key a lock manager makes ({@link #withName}): a held lock keeps its
     * key for as long as it is held, and the three fields in each key took 8 of its 32 bytes.
     */
    private final Scope scope;
    private final String name;
    /** Cached as {@link String} caches its hash: stores hash a key on every call. 0 until computed. */
    private int hash;

    /**
     * Its hash is the first part of {@link LockKey#hashCode()}, made once: every key of a manager shares one scope, and
     * a store hashes each new key at once. It takes the level's ordinal, not its identity hash, so that a key hashes
     * alike in every JVM.
     */
    private record Scope(LockLevel level, String farmId, String clientId, boolean requests, int hash) {
        static Scope of(LockLevel level, String farmId, String clientId) {
            return of(level, farmId, clientId, false);
        }

        static Scope of(LockLevel level, String farmId, String clientId, boolean requests) {
            int lockScope = (level.ordinal() * 31 + Objects.hashCode(farmId)) * 31 + clientId.hashCode();
            // a lock key hashes as it always did; a requests key differs
            return new Scope(level, farmId, clientId, requests, requests ? lockScope * 31 + 1 : lockScope);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** Takes parts already checked; every public way in checks them first. */
    private LockKey(Scope scope, String name) {
        this.scope = scope;
        this.name = Require.notNull(name, "name");
    }

    /** A key of {@link LockLevel#DC}, scoped to {@code farmId}. */
    public static LockKey dc(String farmId, String clientId, String name) {
        return new LockKey(Scope.of(LockLevel.DC, requireId("farmId", farmId), requireId("clientId", clientId)), name);
    }

    /** A key of {@link LockLevel#XDC}. */
    public static LockKey xdc(String clientId, String name) {
        return new LockKey(Scope.of(LockLevel.XDC, null, requireId("clientId", clientId)), name);
    }

    /** The key at {@code level}; {@code farmId} is used for {@link LockLevel#DC} only. */
    public static LockKey of(LockLevel level, String farmId, String clientId, String name) {
        Require.notNull(level, "level");
        return level == LockLevel.DC ? dc(farmId, clientId, name) : xdc(clientId, name);
    }

    /**
     * The key of the same level, farm and client with another caller's key. The ids of this key are checked
     * already, so a lock manager that makes every key of a node from one such key checks them only once.
     */
    public LockKey withName(String name) {
        return new LockKey(scope, name);
    }

    /**
     * The key under which the requests of waiters for this key are kept ({@link #isRequests()}): the same level, farm,
     * client and name, in a space of its own that no lock key shares. A waiter that asks for a place in line holds one of
     * its {@link io.github.lockmanager.LockManager#MAX_PERMITS} permits, so every waiter's request is a record of its
     * own, in the order of their fencing tokens. Its {@link #storageKey()} starts with {@link #REQUESTS_PREFIX}.
     *
     * @throws IllegalStateException if this key is itself a requests key
     */
    public LockKey requests() {
        if (scope.requests()) {
            throw new IllegalStateException("a requests key has no requests key of its own: " + this);
        }
        return new LockKey(Scope.of(scope.level(), scope.farmId(), scope.clientId(), true), name);
    }

    /** Whether this key holds the requests of waiters for a lock key ({@link #requests()}) rather than a lock. */
    public boolean isRequests() {
        return scope.requests();
    }

    /** The lock key whose requests this key holds; this key itself if it is a lock key. */
    public LockKey lockKey() {
        return scope.requests() ? new LockKey(Scope.of(scope.level(), scope.farmId(), scope.clientId()), name) : this;
    }

    /**
     * What a requests key's {@link #storageKey()} starts with, before its level: no lock key's storage key starts with
     * it, since those start with their level.
     */
    public static final String REQUESTS_PREFIX = "Q";

    /**
     * The key that {@link #storageKey()} returned.
     *
     * @throws IllegalArgumentException if {@code storageKey} is not of that form
     */
    public static LockKey parse(String storageKey) {
        Require.notNull(storageKey, "storageKey");
        if (storageKey.startsWith(REQUESTS_PREFIX)) {
            LockKey lock = parse(storageKey.substring(REQUESTS_PREFIX.length()));
            if (lock.isRequests()) {
                throw new IllegalArgumentException("not a lock storage key: '" + storageKey + "'");
            }
            return lock.requests();
        }
        int first = storageKey.indexOf(SEPARATOR);
        int second = first < 0 ? -1 : storageKey.indexOf(SEPARATOR, first + 1);
        if (second < 0) {
            throw new IllegalArgumentException("not a lock storage key: '" + storageKey + "'");
        }
        String level = storageKey.substring(0, first);
        if (level.equals("XDC")) {
            return xdc(storageKey.substring(first + 1, second), storageKey.substring(second + 1));
        }
        int third = storageKey.indexOf(SEPARATOR, second + 1);
        if (!level.equals("DC") || third < 0) {
            throw new IllegalArgumentException("not a lock storage key: '" + storageKey + "'");
        }
        return dc(storageKey.substring(first + 1, second), storageKey.substring(second + 1, third),
                storageKey.substring(third + 1));
    }

    /**
     * Checks a caller's key name against the rules {@link io.github.lockmanager.LockManager} documents: 1 to
     * {@value io.github.lockmanager.LockManager#LOCK_KEY_MAX_LENGTH} chars of storable text.
     *
     * @return the name
     * @throws IllegalArgumentException saying what is wrong with it
     */
    public static String requireName(String name) {
        Require.notNull(name, "lock key");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("lock key must not be empty");
        }
        int max = io.github.lockmanager.LockManager.LOCK_KEY_MAX_LENGTH;
        if (name.length() > max) {
            throw new IllegalArgumentException("lock key is " + name.length() + " chars long, the maximum is " + max
                    + ": '" + name.substring(0, 32) + "...'");
        }
        requireText("lock key", name);
        return name;
    }

    /**
     * Refuses what no store keeps as given: NUL (PostgreSQL rejects it) and unpaired surrogates (drivers store
     * them as '?', so two distinct values would share one record).
     *
     * @throws IllegalArgumentException naming {@code what} and the index of the offending char
     */
    public static void requireText(String what, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\u0000') {
                throw new IllegalArgumentException(what + " must not contain the NUL character (at index " + i + ")");
            }
            if (Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException(what + " has an unpaired surrogate char at index " + i
                        + ": it is not valid Unicode text");
            }
        }
    }

    /**
     * The one rule for every id and name the library is given besides lock keys (node, client and farm ids, task
     * names, a store's key prefix): not blank, no control character (C0, DEL or C1, NEL included: they would break
     * log lines, tables and the stores' listings) and no unpaired surrogate ({@link #requireText}). Each kind may add
     * rules of its own (a length, {@link #SEPARATOR}, a store's reserved chars).
     *
     * @return the value
     * @throws IllegalArgumentException naming {@code what} and what is wrong
     */
    public static String requireIdText(String what, String value) {
        Require.notEmpty(value, what);
        if (value.isBlank()) {
            throw new IllegalArgumentException(what + " must not be blank, was '" + value + "'");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isISOControl(c)) {
                throw new IllegalArgumentException(what + " must not hold a control character (U+"
                        + String.format("%04X", (int) c) + " at index " + i + ")");
            }
        }
        requireText(what, value);
        return value;
    }

    /**
     * Checks a farm or client id: {@link #requireIdText}'s rule, and no {@link #SEPARATOR}.
     *
     * @return the id
     * @throws IllegalArgumentException naming {@code what} if the id is unusable
     */
    public static String requireId(String what, String id) {
        requireIdText(what, id);
        if (id.indexOf(SEPARATOR) >= 0) {
            throw new IllegalArgumentException(what + " must not contain '" + SEPARATOR + "', was '" + id + "'");
        }
        return id;
    }

    public LockLevel level() {
        return scope.level();
    }

    /** The farm id for {@link LockLevel#DC}, else {@code null}. */
    public String farmId() {
        return scope.farmId();
    }

    public String clientId() {
        return scope.clientId();
    }

    /** The caller's key. */
    public String name() {
        return name;
    }

    /**
     * The collision-free string form: see the class comment. Built on each call, not kept: a held lock's key lives
     * as long as the lock, and a store that needs the string needs it only for its calls.
     */
    public String storageKey() {
        return (scope.requests() ? REQUESTS_PREFIX : "") + (scope.level() == LockLevel.DC
                ? "DC" + SEPARATOR + scope.farmId() + SEPARATOR + scope.clientId() + SEPARATOR + name
                : "XDC" + SEPARATOR + scope.clientId() + SEPARATOR + name);
    }

    /** Equal keys have equal storage keys, and the other way round (see the class comment). */
    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof LockKey)) {
            return false;
        }
        LockKey other = (LockKey) o;
        return name.equals(other.name) && (scope == other.scope || scope.equals(other.scope));
    }

    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0) {
            h = scope.hashCode() * 31 + name.hashCode();
            hash = h;
        }
        return h;
    }

    @Override
    public String toString() {
        return storageKey();
    }
}
