package io.github.lockmanager.spi;

import io.github.lockmanager.internal.Require;


/**
 * The answer of {@link LockStore#acquire}: either the new record, or the record of whoever holds the key.
 */
public final class AcquireResult {
    private final boolean acquired;
    private final LockRecord record;

    private AcquireResult(boolean acquired, LockRecord record) {
        this.acquired = acquired;
        this.record = record;
    }

    /** The lock was taken; {@code record} is what the store now holds, with its fencing token. */
    public static AcquireResult acquired(LockRecord record) {
        return new AcquireResult(true, Require.notNull(record, "record"));
    }

    /**
     * Someone else holds the key.
     *
     * @param holder the holder's record, or {@code null} when it could not be read (for example it ended
     *               between the failed write and the read)
     */
    public static AcquireResult heldBy(LockRecord holder) {
        return new AcquireResult(false, holder);
    }

    /**
     * The answer to {@code requester} given the live record the store holds for its key: acquired when the record
     * is the requester's own (a retried or ambiguous write that did apply), else held by the record's owner. This
     * is how a store answers after a write whose outcome it could not see.
     *
     * @param current the live record, or {@code null} when there is none or it could not be read
     */
    public static AcquireResult fromRecord(LockHandle requester, LockRecord current) {
        Require.notNull(requester, "requester");
        return current != null && current.handle().equals(requester) ? acquired(current) : heldBy(current);
    }

    public boolean isAcquired() {
        return acquired;
    }

    /** The new record when {@link #isAcquired()}, else the holder's record or {@code null}. */
    public LockRecord record() {
        return record;
    }

    @Override
    public String toString() {
        return (acquired ? "acquired " : "heldBy ") + record;
    }
}
