package io.github.lockmanager.engine;

import io.github.lockmanager.LockManager;

/** Checks a caller's key against the rules {@link LockManager} documents, naming what is wrong. */
final class KeyValidator {
    private KeyValidator() {
    }

    static String validate(String key) {
        if (key == null) {
            throw new IllegalArgumentException("lock key must not be null");
        }
        if (key.isEmpty()) {
            throw new IllegalArgumentException("lock key must not be empty");
        }
        if (key.length() > LockManager.LOCK_KEY_MAX_LENGTH) {
            throw new IllegalArgumentException("lock key is " + key.length() + " chars long, the maximum is "
                    + LockManager.LOCK_KEY_MAX_LENGTH + ": '" + key.substring(0, 32) + "...'");
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c == '\u0000') {
                throw new IllegalArgumentException("lock key must not contain the NUL character (at index " + i + ")");
            }
            if (Character.isHighSurrogate(c) && i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException("lock key has an unpaired surrogate char at index " + i
                        + ": it is not valid Unicode text");
            }
        }
        return key;
    }
}
