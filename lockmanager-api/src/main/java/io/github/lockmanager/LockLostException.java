package io.github.lockmanager;

/**
 * Work guarded by a lock found that the lock is no longer its acquisition's (its lease ran out, another holder took
 * it over, or it was lost or given back on this node), and did not take effect: a guarded transaction was rolled
 * back, a guarded mutation was not applied. The work must not be retried under the same hold; take the lock again.
 */
public class LockLostException extends LockException {
    private static final long serialVersionUID = 1L;

    public LockLostException(String message) {
        super(message);
    }

    public LockLostException(String message, Throwable cause) {
        super(message, cause);
    }
}
