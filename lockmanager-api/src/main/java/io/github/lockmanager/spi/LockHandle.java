package io.github.lockmanager.spi;

import io.github.lockmanager.internal.Require;


/**
 * One acquisition of a lock: its key and the owner token that acquisition wrote. Every store write that
 * changes or removes a record is conditional on the owner token, so a handle can only ever touch the record
 * its own acquisition created.
 *
 * <p>A lock manager makes its handles with {@link #of(LockKey, String, long)}: the token is a prefix shared by all
 * of the manager's acquisitions and a serial number, kept as such and put together by {@link #ownerToken()} when a
 * store needs the text, so that a held lock does not keep a string of its own. A handle read from a store is made
 * with the constructor. Two handles are equal when their keys and owner tokens are, however they were made.
 */
public final class LockHandle {
    /** What {@link #serial} holds when {@link #text} is the whole token. */
    private static final int WHOLE_TOKEN = -1;

    private final LockKey key;
    /** The token as given, or its prefix when the token is this followed by the decimal {@link #serial}. */
    private final String text;
    /**
     * The serial after {@link #text}, or {@link #WHOLE_TOKEN}. An int rather than a long: a handle lives as long as
     * its lock, and with three 4-byte fields it takes 24 bytes instead of 32; a larger serial is kept in the text.
     */
    private final int serial;

    /**
     * @throws IllegalArgumentException if {@code key} is null
     * @throws IllegalArgumentException if {@code ownerToken} is null or empty (a store may name a mark it read,
     *                                  {@link #MARK_PREFIX}; acquisitions are made with {@link #of})
     */
    public LockHandle(LockKey key, String ownerToken) {
        this(key, Require.notEmpty(ownerToken, "ownerToken"), WHOLE_TOKEN);
    }

    private LockHandle(LockKey key, String text, int serial) {
        this.key = Require.notNull(key, "key");
        this.text = text;
        this.serial = serial;
    }

    /**
     * The handle whose owner token is {@code ownerPrefix} followed by the decimal {@code ownerSerial}.
     *
     * @throws IllegalArgumentException if {@code ownerPrefix} is null, empty or starts with {@link #MARK_PREFIX}, or
     *                                  {@code ownerSerial} is negative
     */
    public static LockHandle of(LockKey key, String ownerPrefix, long ownerSerial) {
        if (ownerSerial < 0) {
            throw new IllegalArgumentException("ownerSerial must not be negative, was " + ownerSerial);
        }
        requireToken(ownerPrefix);
        return ownerSerial <= Integer.MAX_VALUE ? new LockHandle(key, ownerPrefix, (int) ownerSerial)
                : new LockHandle(key, ownerPrefix + ownerSerial, WHOLE_TOKEN);
    }

    /**
     * The first character of the marks stores write in place of an owner token; no acquisition's token starts with
     * it ({@link #of} refuses such a prefix).
     */
    public static final char MARK_PREFIX = '~';

    private static String requireToken(String token) {
        Require.notEmpty(token, "ownerToken");
        Require.argument(token.charAt(0) != MARK_PREFIX, "ownerToken must not start with '%s' (kept for the marks "
                + "stores write), was '%s'", MARK_PREFIX, token);
        return token;
    }

    public LockKey key() {
        return key;
    }

    /** The owner token; for a handle made by {@link #of}, a new string on each call. */
    public String ownerToken() {
        return serial == WHOLE_TOKEN ? text : text + serial;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof LockHandle)) {
            return false;
        }
        LockHandle other = (LockHandle) o;
        if (serial != WHOLE_TOKEN && other.serial != WHOLE_TOKEN && text.equals(other.text)) {
            // one prefix: the decimal serials are equal exactly when the tokens are. The serials first: a store
            // looking for one holder among a key's holders compares handles whose keys are all equal
            return serial == other.serial && key.equals(other.key);
        }
        return key.equals(other.key) && ownerToken().equals(other.ownerToken());
    }

    /** Equal to the hash of a handle made from the same key and token by the constructor. */
    @Override
    public int hashCode() {
        return 31 * key.hashCode() + (serial == WHOLE_TOKEN ? text.hashCode() : serialTokenHash());
    }

    /** {@code ownerToken().hashCode()} without building the string. */
    private int serialTokenHash() {
        int h = text.hashCode();
        int scale = 1;
        while (scale <= serial / 10) {
            scale *= 10;
        }
        for (int rest = serial; scale > 0; scale /= 10) {
            h = 31 * h + (char) ('0' + rest / scale);
            rest %= scale;
        }
        return h;
    }

    @Override
    public String toString() {
        return "LockHandle[key=" + key + ", ownerToken=" + ownerToken() + "]";
    }
}
