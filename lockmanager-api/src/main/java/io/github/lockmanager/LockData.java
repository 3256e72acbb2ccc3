package io.github.lockmanager;

import java.util.Collection;
import java.util.Map;

/**
 * Data kept with a lock's own record in its store (Astyanax's "lock kept with the data"): read, changed and released
 * with the lock in one round trip each, every call applied only while the lock is still the given hold's, so a holder
 * that lost its lock (its lease ran out, it was force-released) can neither read stale data as current nor write over
 * the next holder's. Each store that keeps records a value can carry has one ({@code RedisLockData},
 * {@code HBaseRowData}, {@code AerospikeRecordData}); {@code V} is what its values are (text, bytes, the store's own
 * values). The data outlives the lock: the next holder of the key reads what the last one wrote.
 *
 * <p>Exclusive locks only: a hold in another mode is refused with {@link UnsupportedOperationException}. Thread-safe;
 * a hold may be used from any thread.
 *
 * @param <V> the type of a value
 */
public interface LockData<V> {

    /**
     * The data of {@code held}'s key, read where the store checks that the lock is still {@code held}'s.
     *
     * @throws LockLostException    if it is not: nothing read may be relied on
     * @throws LockManagerException if the store failed
     */
    Map<String, V> read(LockResource held) throws LockManagerException, LockLostException;

    /**
     * Writes {@code puts} and removes the names in {@code deletes}, both or neither, only while the lock is
     * {@code held}'s; the lock stays held.
     *
     * @throws LockLostException        if it is not: nothing was written
     * @throws LockManagerException     if the store failed: the write may or may not have applied
     * @throws IllegalArgumentException if a name or value cannot be stored, naming it; nothing was written
     */
    void change(LockResource held, Map<String, ? extends V> puts, Collection<String> deletes)
            throws LockManagerException, LockLostException;

    /**
     * Writes the changes and releases the lock together: both or neither. When the holder holds the lock more than
     * once, only the changes are written and this hold is given back. If the write fails, the lock is released by the
     * manager apart.
     *
     * @throws LockLostException        if the lock was not {@code held}'s: nothing was written
     * @throws LockManagerException     if the store failed
     * @throws IllegalArgumentException if a name or value cannot be stored, naming it; nothing was written
     */
    void releaseWithChanges(LockResource held, Map<String, ? extends V> puts, Collection<String> deletes)
            throws LockManagerException, LockLostException;
}
