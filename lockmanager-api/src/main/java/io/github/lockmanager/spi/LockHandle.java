package io.github.lockmanager.spi;

import java.util.Objects;

/**
 * One acquisition of a lock: its key and the owner token that acquisition wrote. Every store write that
 * changes or removes a record is conditional on the owner token, so a handle can only ever touch the record
 * its own acquisition created.
 */
public record LockHandle(LockKey key, String ownerToken) {
    public LockHandle {
        Objects.requireNonNull(key, "key");
        if (ownerToken == null || ownerToken.isEmpty()) {
            throw new IllegalArgumentException("ownerToken must not be null or empty");
        }
    }
}
