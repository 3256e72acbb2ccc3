package io.github.lockmanager.engine;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.Require;

import java.util.ArrayList;
import java.util.List;

/** Checks a caller's key and ids against the rules {@link LockManager} documents, naming what is wrong. */
final class KeyValidator {
    private KeyValidator() {
    }

    static String validate(String key) {
        Require.notNull(key, "lock key");
        if (key.isEmpty()) {
            throw new IllegalArgumentException("lock key must not be empty");
        }
        if (key.length() > LockManager.LOCK_KEY_MAX_LENGTH) {
            throw new IllegalArgumentException("lock key is " + key.length() + " chars long, the maximum is "
                    + LockManager.LOCK_KEY_MAX_LENGTH + ": '" + key.substring(0, 32) + "...'");
        }
        requireText("lock key", key);
        return key;
    }

    /**
     * The keys a hierarchical lock on {@code path} takes, top-down: each prefix of the path that ends before a
     * separator, then the path itself ({@code "a/b/c"}: {@code "a"}, {@code "a/b"}, {@code "a/b/c"}).
     *
     * @throws IllegalArgumentException if a segment is empty (the path starts or ends with the separator, or has
     *                                  two in a row); the path itself was validated as a key
     */
    static List<String> pathPrefixes(String path, char separator) {
        List<String> prefixes = new ArrayList<>();
        int from = 0;
        while (true) {
            int end = path.indexOf(separator, from);
            int segmentEnd = end < 0 ? path.length() : end;
            if (segmentEnd == from) {
                throw new IllegalArgumentException("lock path '" + path + "' has an empty segment at index " + from
                        + " (separator '" + separator + "')");
            }
            prefixes.add(path.substring(0, segmentEnd));
            if (end < 0) {
                return prefixes;
            }
            from = end + 1;
        }
    }

    /**
     * Refuses what no store keeps as given: NUL (PostgreSQL rejects it) and unpaired surrogates (drivers store
     * them as '?', so two distinct values would share one record).
     */
    static void requireText(String what, String value) {
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
}
