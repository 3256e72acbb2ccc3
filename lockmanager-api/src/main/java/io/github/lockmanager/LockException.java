package io.github.lockmanager;

/**
 * The checked root of every failure {@link LockManager} reports: either the key is held by someone else
 * ({@link AlreadyLockedException}) or the manager could not do its work ({@link LockManagerException}).
 */
public class LockException extends Exception {
    private static final long serialVersionUID = 1L;

    public LockException(String message) {
        super(message);
    }

    public LockException(String message, Throwable cause) {
        super(message, cause);
    }
}
