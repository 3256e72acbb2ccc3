package io.github.lockmanager.utils;

import io.github.lockmanager.LockException;

/**
 * A {@link LockException} where an interface allows no checked exception ({@link ClusterLock}, which implements
 * {@link java.util.concurrent.locks.Lock}): the store failed, or a lock was lost while held. The cause says which.
 */
public class UncheckedLockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UncheckedLockException(LockException cause) {
        super(cause.getMessage(), cause);
    }

    @Override
    public synchronized LockException getCause() {
        return (LockException) super.getCause();
    }
}
