package io.github.lockmanager.engine;

import io.github.lockmanager.AlreadyLockedException;

import java.time.Instant;

/**
 * A refusal by a holder whose record the store showed: when that holder's lease ends, in the store's time. A waiter
 * refused so looks again then at the latest, so that a holder that died without letting go (no release is announced)
 * keeps it waiting no longer than its lease, not until the waiter's next safety look ({@link Parking#park}).
 */
final class HeldUntil extends AlreadyLockedException {
    private static final long serialVersionUID = 1L;

    /** When the holder's lease ends unless renewed. */
    final transient Instant leaseEnd;

    HeldUntil(String key, String holderNodeId, String holderThreadName, boolean heldOnThisNode, Instant leaseEnd) {
        super(key, holderNodeId, holderThreadName, heldOnThisNode);
        this.leaseEnd = leaseEnd;
    }
}
