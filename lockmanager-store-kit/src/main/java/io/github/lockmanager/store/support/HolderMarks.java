package io.github.lockmanager.store.support;

import io.github.lockmanager.spi.LockHandle;

/**
 * The owner values a key's record carries, in place of an owner token, while holders in modes other than exclusive
 * hold the key in records of their own: an exclusive acquisition's condition ("free, expired, or mine") then fails on
 * the mark alone, so exclusive locking costs what it did, and joining holders need not touch the key's record again.
 * A mark whose holders have all gone is taken over by the next exclusive acquisition. All start with
 * {@link LockHandle#MARK_PREFIX}, which no acquisition's owner token may, so no acquisition can own a mark.
 */
public final class HolderMarks {
    /** The key's holders may be shared (or intention-shared, where the store marks them apart). */
    public static final String SHARED = LockHandle.MARK_PREFIX + "shared";
    /** The key's holders may be intention-exclusive or intention-shared. */
    public static final String INTENT = LockHandle.MARK_PREFIX + "intent";
    /** The key's holders may be permit holders, who admit no other mode beside them. */
    public static final String PERMIT = LockHandle.MARK_PREFIX + "permit";

    private HolderMarks() {
    }

    /** Whether {@code owner}, a record's owner value, is a mark rather than an acquisition's token. */
    public static boolean isMark(String owner) {
        return SHARED.equals(owner) || INTENT.equals(owner) || PERMIT.equals(owner);
    }
}
