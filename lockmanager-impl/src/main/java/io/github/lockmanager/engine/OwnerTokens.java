package io.github.lockmanager.engine;

import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The owner tokens of one manager's acquisitions and requests: a random prefix of the manager's and a serial, so that
 * tokens are unique per acquisition, also across restarts of a node that keeps its node id, and a token read from the
 * store tells which manager wrote it and which of its acquisitions it is (what deadlock detection follows).
 */
final class OwnerTokens {
    private final String prefix;
    private final AtomicLong counter = new AtomicLong();

    OwnerTokens() {
        byte[] random = new byte[8];
        new SecureRandom().nextBytes(random);
        this.prefix = HexFormat.of().formatHex(random) + ":";
    }

    /** A handle of {@code key} with the next owner token. */
    LockHandle newHandle(LockKey key) {
        return LockHandle.of(key, prefix, counter.incrementAndGet());
    }

    /** The serial of a handle this manager made, or -1 for another manager's. */
    long serialOf(LockHandle handle) {
        return serialOf(handle.ownerToken(), prefix);
    }

    /** The serial in {@code ownerToken} if it starts with {@code prefix} and a serial follows, else -1. */
    static long serialOf(String ownerToken, String prefix) {
        if (!ownerToken.startsWith(prefix)) {
            return -1;
        }
        try {
            return Long.parseLong(ownerToken.substring(prefix.length()));
        } catch (NumberFormatException notOurs) {
            return -1;
        }
    }

    /** The part of an owner token before its serial (a manager's prefix, its colon included), or {@code null}. */
    static String prefixOf(String ownerToken) {
        int colon = ownerToken.indexOf(':');
        return colon < 0 ? null : ownerToken.substring(0, colon + 1);
    }
}
