package io.github.lockmanager.store.redis;

import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;

/**
 * Where a lock lives in Redis: one hash per key, named by the store's prefix and the key's storage key, so that
 * everything of one lock is in one hash slot of a cluster; a holder's field in it; the channel releases are published
 * on. Immutable.
 */
final class RedisLayout {
    /** The most a prefix may hold; the rest of a hash's name is the storage key. */
    static final int MAX_PREFIX_LENGTH = 64;
    private static final String HOLDER = "h:";

    private final String prefix;

    RedisLayout(String prefix) {
        this.prefix = requirePrefix(prefix);
    }

    /**
     * @throws IllegalArgumentException if {@code prefix} breaks the rule of every id ({@link LockKey#requireIdText}), is
     *                                  longer than {@value #MAX_PREFIX_LENGTH}, or holds a glob character (listing
     *                                  scans by it) or a brace (it would choose the slot)
     */
    static String requirePrefix(String prefix) {
        LockKey.requireIdText("keyPrefix", prefix);
        Require.argument(prefix.length() <= MAX_PREFIX_LENGTH, "keyPrefix must be at most %s chars, was %s",
                MAX_PREFIX_LENGTH, prefix.length());
        for (char c : prefix.toCharArray()) {
            Require.argument("*?[]\\{}".indexOf(c) < 0, "keyPrefix must not hold '%s' (listing matches by it and a "
                    + "cluster hashes by braces), was '%s'", c, prefix);
        }
        return prefix;
    }

    String prefix() {
        return prefix;
    }

    /** The hash of {@code key}. */
    String hash(LockKey key) {
        return prefix + key.storageKey();
    }

    /** The key whose hash is {@code hash}, or {@code null} if it is not one of this layout's. */
    LockKey keyOf(String hash) {
        if (!hash.startsWith(prefix)) {
            return null;
        }
        try {
            return LockKey.parse(hash.substring(prefix.length()));
        } catch (IllegalArgumentException notALock) {
            return null;
        }
    }

    /** What {@code SCAN} matches the hashes by. */
    String pattern() {
        return prefix + "*";
    }

    /** The channel on which a release of a key someone waits for is published, with the key's storage key. */
    String channel() {
        return prefix + "released";
    }

    static String holderField(LockHandle handle) {
        return HOLDER + handle.ownerToken();
    }

    static String ownerOf(String holderField) {
        return holderField.substring(HOLDER.length());
    }
}
