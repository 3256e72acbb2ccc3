package io.github.lockmanager.spi;

/** A store's per-lock answer to {@link LockStore#renew} and {@link LockStore#check}. */
public enum HoldState {
    /** The record is this acquisition's and live (for {@code renew}: its lease was extended). */
    HELD,
    /** As {@link #HELD}, and someone asked the holder to stop. */
    ABORT_REQUESTED,
    /** The record is gone, expired, or another acquisition's: this acquisition no longer holds the lock. */
    LOST;

    /**
     * The state of an acquisition whose record the store has looked at.
     *
     * @param held           the record is live and this acquisition's
     * @param abortRequested the record carries an abort request for this acquisition (ignored when not held)
     */
    public static HoldState of(boolean held, boolean abortRequested) {
        return !held ? LOST : abortRequested ? ABORT_REQUESTED : HELD;
    }
}
