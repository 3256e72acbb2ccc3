package io.github.lockmanager;

import io.github.lockmanager.spi.LockHandle;

/**
 * A hold lent to work that a store-specific recipe does in the lock's own store, under the lock: a database
 * transaction that the lock's row guards, a mutation of the row that holds the lock. Made by
 * {@link LockResource#guard()}; the recipes of each store use it (for example {@code JdbcLockStore.guard}), and
 * callers rarely need it themselves.
 *
 * <p>While a guard is open, the manager does not renew the lock (it still polls it for aborts): the recipe's work
 * may keep the lock's record busy, and a renewal would have to wait for it, delaying every other lock renewed in the
 * same batch. The lease therefore runs on from its last renewal, and guarded work must end well inside it; when the
 * lease would run out first, the lock is declared lost as any other (the holder thread is interrupted) and the
 * recipe refuses to let the work take effect.
 *
 * <p>Thread rules: a guard belongs to the work's thread, usually the holder's. {@link #release} gives back the hold
 * it was made from, as {@link LockResource#close()} would, with the release of the record left to the work.
 * {@link #close()} is idempotent and never throws.
 */
public interface GuardedHold extends AutoCloseable {

    /**
     * The acquisition as its store knows it: the full key and the owner token that every write of the record is
     * conditional on. The owner token lets its bearer release the lock: keep it within the recipe.
     */
    LockHandle handle();

    /**
     * Gives back the guarded hold together with the end of the work, and closes this guard. {@code finish} runs on
     * the calling thread, told whether this is the lock's last hold:
     * <ul>
     *   <li>{@code true}: the manager has stopped counting the lock as held (no renewal, no re-entry, no loss report
     *       for it), and {@code finish} must remove the record as part of the work, atomically with it (Alfresco's
     *       {@code commitLock}), or throw if the record is no longer this acquisition's. When it returns, the
     *       acquisition has ended without a further store call.</li>
     *   <li>{@code false}: other holds of the lock remain; {@code finish} must end the work and leave the record
     *       alone. When it returns, this hold has been given back and the lock is still held.</li>
     * </ul>
     * If {@code finish} throws, the work is taken not to have happened and the exception is rethrown after the
     * hold is settled: with {@code keepOnFailure} the hold stays exactly as it was (the lock still held, renewed
     * again), else it is given back as {@link LockResource#close()} would, the manager releasing the record itself
     * in a call of its own (Alfresco's {@code rollbackLock}).
     *
     * @throws LockLostException     if the lock had already ended (lost, or given back) before {@code finish} could
     *                               run; {@code finish} is not called then
     * @throws IllegalStateException if this guard is closed
     * @throws X                     what {@code finish} threw
     */
    <X extends Exception> void release(Finish<X> finish, boolean keepOnFailure) throws X, LockLostException;

    /** Ends the guard and keeps the hold: renewal resumes. Does nothing after {@link #release} or a first close. */
    @Override
    void close();

    /**
     * The end of guarded work that may take the lock's record with it; see {@link #release}.
     *
     * @param <X> what it may throw
     */
    @FunctionalInterface
    interface Finish<X extends Exception> {
        /**
         * @param handle   the acquisition whose record the work removes when {@code lastHold}
         * @param lastHold whether the work must remove the record
         */
        void run(LockHandle handle, boolean lastHold) throws X;
    }
}
