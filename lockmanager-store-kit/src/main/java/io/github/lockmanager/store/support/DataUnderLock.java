package io.github.lockmanager.store.support;

import io.github.lockmanager.GuardedHold;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.LockHandle;


/**
 * The rules every store's "data in the lock's own record" follows (Astyanax's row lock recipe), written once: only an
 * exclusive hold may carry data; a read or change names the acquisition that must still own the record; the last
 * change may release the lock in the same write. A store supplies the write; {@code HBaseRowData} and
 * {@code AerospikeRecordData} are built on it. Stateless and thread-safe.
 */
public final class DataUnderLock {
    private DataUnderLock() {
    }

    /** A store's one write of changes, releasing the record with them when {@code release}. */
    @FunctionalInterface
    public interface Write {
        /** @return {@code false} if the record was no longer {@code handle}'s: nothing was written */
        boolean write(LockHandle handle, boolean release) throws LockManagerException;
    }

    /**
     * The acquisition of an exclusive hold, to check each read and change against.
     *
     * @throws UnsupportedOperationException if {@code held} is not exclusive
     * @throws LockLostException             if it is no longer held
     */
    public static LockHandle handleOf(LockResource held) throws LockLostException {
        requireExclusive(held);
        try (GuardedHold hold = held.guard()) {
            return hold.handle();
        }
    }

    /**
     * Writes changes under {@code held}, which stays held: {@code write} without a release.
     *
     * @param store names where the record lives, in the message of a {@link LockLostException}
     * @throws LockLostException if the record was no longer the hold's: nothing was written
     */
    public static void change(LockResource held, Object store, Write write)
            throws LockManagerException, LockLostException {
        LockHandle handle = handleOf(held);
        if (!write.write(handle, false)) {
            throw lost(handle, store, "nothing was written");
        }
    }

    /**
     * Writes the changes and gives back {@code held}'s hold in one write where this is its last hold (both or
     * neither), else writes the changes and gives back the hold. If the write fails the lock is released by the
     * manager apart.
     *
     * @param store names where the record lives, in the message of a {@link LockLostException}
     * @throws LockLostException if the record was no longer the hold's: nothing was written
     */
    public static void releaseWith(LockResource held, Object store, Write write)
            throws LockManagerException, LockLostException {
        requireExclusive(held);
        try (GuardedHold hold = held.guard()) {
            hold.release((handle, lastHold) -> {
                if (!write.write(handle, lastHold)) {
                    throw lost(handle, store, "nothing was written");
                }
            }, false);
        } catch (LockManagerException | LockLostException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw LockManagerException.propagate(e);
        }
    }

    /**
     * What a read or write of data under {@code handle} throws when the record in {@code store} is no longer its:
     * {@code consequence} says what that means for the caller ("nothing was written").
     */
    public static LockLostException lost(LockHandle handle, Object store, String consequence) {
        return new LockLostException("lock '" + handle.key().name() + "' (" + handle.key().level() + ") is no longer"
                + " this acquisition's in " + store + ": its lease ran out or it was taken; " + consequence);
    }

    /** @throws UnsupportedOperationException naming the lock and its mode, if {@code held} is not exclusive */
    public static void requireExclusive(LockResource held) {
        Require.notNull(held, "held");
        LockMode mode = held.getLock().getMode();
        if (mode != LockMode.EXCLUSIVE) {
            throw new UnsupportedOperationException("data in the lock's own record needs an exclusive lock; lock '"
                    + held.getLock().getKey() + "' is held " + mode);
        }
    }
}
