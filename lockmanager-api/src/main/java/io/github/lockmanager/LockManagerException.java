package io.github.lockmanager;

import io.github.lockmanager.internal.Require;


/**
 * The lock manager or its store could not do what was asked. {@link #getErrorCode()} says why; the
 * cause, when there is one, is the store's own exception.
 */
public class LockManagerException extends LockException {
    private static final long serialVersionUID = 1L;

    /** Why a {@link LockManagerException} was thrown. */
    public enum ErrorCode {
        /** The store refused the lock although no holder could be named (for example a write conflict). */
        LOCK_UNAVAILABLE,
        /** The store could not be reached, or an I/O call to it failed. */
        CONNECTION_ERROR,
        /** A transient store failure persisted through every retry. */
        RETRIES_EXHAUSTED,
        /** The store's table, namespace or other structure could not be created or has the wrong layout. */
        TABLE_CREATION_ERROR,
        /**
         * The wait was one of a cycle of waits (each owner waits for a lock another one of the cycle holds, on any
         * nodes) and was chosen to end so that the others can go on; the message names the cycle. Found among
         * {@link LockSpec#fair fair} waits, which register their requests.
         */
        DEADLOCK,
        /**
         * A lock record in the store is in a format this release does not read (a later release wrote it, for example
         * during a rolling upgrade that is being rolled back) or is damaged; the call wrote nothing. The message names
         * the format. Not retried: it fails again until a release that reads the format runs.
         */
        UNREADABLE_RECORD,
        /** Anything else: a bug, or an answer from the store that makes no sense. */
        INTERNAL_ERROR
    }

    private final ErrorCode errorCode;

    public LockManagerException(ErrorCode errorCode, String message) {
        this(errorCode, message, null);
    }

    public LockManagerException(ErrorCode errorCode, String message, Throwable cause) {
        super("[" + requireCode(errorCode) + "] " + message, cause);
        this.errorCode = errorCode;
    }

    private static ErrorCode requireCode(ErrorCode errorCode) {
        return Require.notNull(errorCode, "errorCode");
    }

    public ErrorCode getErrorCode() {
        return errorCode;
    }

    /**
     * Turns any throwable into a {@link LockManagerException} a caller can switch on: the first
     * {@code LockManagerException} in the cause chain is returned as it is, so its code survives any
     * wrapping; anything else becomes {@link ErrorCode#INTERNAL_ERROR} with the throwable as cause.
     * An {@link InterruptedException} in the chain re-asserts the current thread's interrupt flag, so
     * converting it never swallows an interrupt.
     *
     * @throws IllegalArgumentException if {@code t} is null
     */
    public static LockManagerException propagate(Throwable t) {
        Require.notNull(t, "throwable to propagate");
        // bounded: a cause chain may be cyclic
        Throwable c = t;
        for (int depth = 0; c != null && depth < 64; depth++, c = c.getCause()) {
            if (c instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            if (c instanceof LockManagerException) {
                return (LockManagerException) c;
            }
        }
        return new LockManagerException(ErrorCode.INTERNAL_ERROR, String.valueOf(t), t);
    }
}
