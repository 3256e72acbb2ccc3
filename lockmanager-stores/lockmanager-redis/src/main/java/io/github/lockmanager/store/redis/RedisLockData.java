package io.github.lockmanager.store.redis;

import io.github.lockmanager.LockData;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.store.support.DataUnderLock;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The caller's data kept in the lock's own hash (Astyanax's row lock recipe): fields the caller names, beside the
 * lock's own, so that one script guards both. Every read and change is checked against the lock's entry in the same
 * script, so a holder whose lease ended (or whose lock was force-released) can neither read data as if it held the lock
 * nor change it, and the last change can release the lock in the same script.
 *
 * <pre>{@code
 * RedisLockData orders = new RedisLockData(store);
 * try (LockResource held = locks.lock("order-123")) {
 *     Map<String, String> data = orders.read(held);                        // 1 round trip
 *     orders.releaseWithChanges(held, Map.of("state", "PAID"), List.of());  // 1: the changes and the release
 * }
 * }</pre>
 *
 * <p>Round trips: {@link #read} 1, {@link #change} 1, {@link #releaseWithChanges} 1. Names and values are text; the
 * data lives as long as the key's hash: the store's idle record retention after the key's last grant or renewal (raise
 * the retention to keep it longer). Exclusive locks only. Thread-safe.
 */
public final class RedisLockData implements LockData<String> {
    private final RedisLockStore store;

    /** @param store the store whose hashes hold the data; the managers that take the locks use it */
    public RedisLockData(RedisLockStore store) {
        this.store = Require.notNull(store, "store");
    }

    /**
     * The data fields of the lock's hash, read in the script that checks the lock is still this acquisition's.
     *
     * @throws LockLostException if it is not: nothing read may be relied on
     */
    @Override
    public Map<String, String> read(LockResource held) throws LockManagerException, LockLostException {
        LockHandle handle = DataUnderLock.handleOf(held);
        RedisAccess access = store.connectedAccess();
        String[] keys = {access.layout().hash(handle.key())};
        List<?> answer = access.call("read the data of lock '" + handle.key().name() + "'",
                timeout -> access.<List<?>>run(RedisScripts.DATA_READ, timeout, keys, RedisLayout.holderField(handle)));
        if ((Long) answer.get(0) != 1) {
            throw DataUnderLock.lost(handle, store, "its data was not read");
        }
        Map<String, String> data = new TreeMap<>();
        for (int i = 1; i + 1 < answer.size(); i += 2) {
            data.put((String) answer.get(i), (String) answer.get(i + 1));
        }
        return new LinkedHashMap<>(data);
    }

    /**
     * Writes {@code puts} and removes the fields {@code deletes} in one script, applied only while the lock is this
     * acquisition's; the lock stays held.
     *
     * @throws LockLostException if it is not: nothing was written
     */
    @Override
    public void change(LockResource held, Map<String, ? extends String> puts, Collection<String> deletes)
            throws LockManagerException, LockLostException {
        DataUnderLock.change(held, store, (handle, release) -> write(handle, puts, deletes, release));
    }

    /**
     * Writes the changes and releases the lock in one script: both or neither. When the calling thread holds the lock
     * more than once, only the changes are written and this hold given back. If the write fails the lock is released
     * by the manager apart.
     *
     * @throws LockLostException if the lock was not this acquisition's: nothing was written
     */
    @Override
    public void releaseWithChanges(LockResource held, Map<String, ? extends String> puts,
                                   Collection<String> deletes)
            throws LockManagerException, LockLostException {
        DataUnderLock.releaseWith(held, store,
                (handle, release) -> write(handle, puts, deletes, release));
    }

    private boolean write(LockHandle handle, Map<String, ? extends String> puts, Collection<String> deletes,
                          boolean release)
            throws LockManagerException {
        Require.notNull(puts, "puts");
        Require.notNull(deletes, "deletes");
        RedisAccess access = store.connectedAccess();
        RedisLayout layout = access.layout();
        List<String> args = new ArrayList<>(List.of(RedisLayout.holderField(handle), release ? "1" : "0",
                Long.toHexString(ThreadLocalRandom.current().nextLong()), layout.channel(), handle.key().storageKey(),
                Integer.toString(puts.size())));
        new TreeMap<>(puts).forEach((name, value) -> {
            args.add(name(name));
            args.add(Require.notNull(value, "value of field " + name));
        });
        deletes.forEach(name -> args.add(name(name)));
        String[] keys = {layout.hash(handle.key())};
        String[] all = args.toArray(String[]::new);
        return access.call("write the data of lock '" + handle.key().name() + "'",
                timeout -> (Long) access.<List<?>>run(RedisScripts.DATA_WRITE, timeout, keys, all).get(0) == 1);
    }

    private static String name(String name) {
        Require.notEmpty(name, "field");
        LockKey.requireText("field", name);
        return name;
    }


    @Override
    public String toString() {
        return "RedisLockData[" + store + "]";
    }
}
