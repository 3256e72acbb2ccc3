package io.github.lockmanager.engine;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.Require;

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
