package io.github.lockmanager.store.cassandra;

import com.datastax.oss.driver.api.core.cql.Row;
import io.github.lockmanager.LockData;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.store.cassandra.KeyStates.Change;
import io.github.lockmanager.store.support.DataUnderLock;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The caller's data kept in the lock's own row (Astyanax's row lock recipe): named values in the row's data column
 * ({@code d map<text, blob>}), beside the key's state cell, so that one lightweight transaction guards both. A read is a
 * linearizable read of the row that answers only while the lock is still the hold's; a change is a conditional batch on
 * the key's partition that writes the data only while the state cell still holds the hold's live holder, and the last
 * change releases the lock in the same batch.
 *
 * <pre>{@code
 * CassandraRowData orders = new CassandraRowData(store);
 * try (LockResource held = locks.lock("order-123")) {
 *     Map<String, byte[]> data = orders.read(held);                                    // 1 serial read
 *     orders.releaseWithChanges(held, Map.of("state", "PAID".getBytes(UTF_8)), List.of()); // 1 transaction
 * }
 * }</pre>
 *
 * <p>Round trips: {@link #read} 1 (a Paxos read), {@link #change} and {@link #releaseWithChanges} 1 transaction each (2
 * when another node changed the key's state since this store saw it). The data has no TTL: it stays in the row when the
 * lock's state expires, for the next holder, until a holder deletes it. Names are 1 to 255 characters; values are bytes.
 * Exclusive locks only. Thread-safe.
 */
public final class CassandraRowData implements LockData<byte[]> {
    /** The longest name of a value. */
    public static final int MAX_NAME_LENGTH = 255;

    private final CassandraLockStore store;
    private final CassandraAccess access;

    /** @param store the store whose rows hold the data; the managers that take the locks use it */
    public CassandraRowData(CassandraLockStore store) {
        this.store = Require.notNull(store, "store");
        this.access = store.access();
    }

    /**
     * The data of the lock's row, read by a linearizable read that also shows the lock is still this acquisition's.
     *
     * @throws LockLostException if it is not: nothing read may be relied on
     */
    @Override
    public Map<String, byte[]> read(LockResource held) throws LockManagerException, LockLostException {
        LockHandle handle = DataUnderLock.handleOf(held);
        // decoded inside the call, so that a cell this release cannot read is reported by the call's rule
        RowRead read = access.call("read the data of lock '" + handle.key().name() + "'", timeout -> {
            Row found = CassandraAccess.await(access.readWithData(handle.key(), timeout), timeout);
            return new RowRead(found, KeyState.decode(found == null ? null : found.getByteBuffer(0)));
        });
        Row row = read.row();
        if (!holds(read.state(), handle, System.currentTimeMillis())) {
            throw DataUnderLock.lost(handle, store, "nothing read may be relied on");
        }
        Map<String, byte[]> data = new LinkedHashMap<>();
        if (row != null) {
            for (Map.Entry<String, ByteBuffer> value : row.getMap(1, String.class, ByteBuffer.class).entrySet()) {
                byte[] bytes = new byte[value.getValue().remaining()];
                value.getValue().duplicate().get(bytes);
                data.put(value.getKey(), bytes);
            }
        }
        return data;
    }

    /**
     * Writes {@code puts} and removes {@code deletes} in one transaction, only while the lock is {@code held}'s.
     *
     * @throws LockLostException        if it is not: nothing was written
     * @throws IllegalArgumentException naming a name or value that cannot be stored, or a name both put and deleted
     */
    @Override
    public void change(LockResource held, Map<String, ? extends byte[]> puts, Collection<String> deletes)
            throws LockManagerException, LockLostException {
        DataUnderLock.change(held, store, (handle, release) -> write(handle, puts, deletes, release));
    }

    /**
     * Writes the changes and releases the lock in one transaction (where this is the hold's last hold; else writes the
     * changes and gives the hold back).
     *
     * @throws LockLostException        if the lock was not {@code held}'s: nothing was written
     * @throws IllegalArgumentException naming a name or value that cannot be stored; nothing was written
     */
    @Override
    public void releaseWithChanges(LockResource held, Map<String, ? extends byte[]> puts, Collection<String> deletes)
            throws LockManagerException, LockLostException {
        Map<String, ByteBuffer> values = values(puts, deletes);
        Set<String> removed = new LinkedHashSet<>(deletes);
        DataUnderLock.releaseWith(held, store,
                (handle, release) -> writeValues(handle, values, removed, release));
    }

    private boolean write(LockHandle handle, Map<String, ? extends byte[]> puts, Collection<String> deletes,
                          boolean release) throws LockManagerException {
        return writeValues(handle, values(puts, deletes), new LinkedHashSet<>(deletes), release);
    }

    private boolean writeValues(LockHandle handle, Map<String, ByteBuffer> puts, Set<String> deletes, boolean release)
            throws LockManagerException {
        String owner = handle.ownerToken();
        return store.change((release ? "release lock '" : "write the data of lock '") + handle.key().name() + "'",
                handle.key(), (state, now) -> {
                    if (!holds(state, handle, now)) {
                        return new Change<>(null, false);
                    }
                    // without a release the state is written as it is: the condition is what guards the data
                    return new Change<>(release ? KeyStates.release(state, owner).next() : state, true);
                }, (key, expected, next, ttl, timeout) -> access.compareAndSetWithData(key, expected, next, ttl, puts,
                        deletes, timeout));
    }

    private static boolean holds(KeyState state, LockHandle handle, long now) {
        for (Holder h : state.holders()) {
            if (h.owner().equals(handle.ownerToken())) {
                return h.liveAt(now, 0);
            }
        }
        return false;
    }

    /** The puts as the driver binds them, each name and value checked; nothing is written if one is refused. */
    private static Map<String, ByteBuffer> values(Map<String, ? extends byte[]> puts, Collection<String> deletes) {
        Require.notNull(puts, "puts");
        Require.notNull(deletes, "deletes");
        Map<String, ByteBuffer> values = new LinkedHashMap<>();
        for (Map.Entry<String, ? extends byte[]> put : puts.entrySet()) {
            String name = checkName(put.getKey());
            Require.argument(!deletes.contains(name), "value '%s' is both put and deleted", name);
            values.put(name, ByteBuffer.wrap(Require.notNull(put.getValue(), "value of '" + name + "'")));
        }
        for (String name : deletes) {
            checkName(name);
        }
        return values;
    }

    private static String checkName(String name) {
        Require.notEmpty(name, "name of a value");
        if (name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("name of a value must be at most " + MAX_NAME_LENGTH + " characters, was "
                    + name.length() + ": '" + name.substring(0, 32) + "…'");
        }
        Require.argument(new String(name.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).equals(name),
                "name of a value '%s' is not storable text (an unpaired surrogate)", name);
        return name;
    }


    @Override
    public String toString() {
        return "CassandraRowData[" + store + "]";
    }

    /** The lock's row as one read found it ({@code null} if there is none), and its lock state decoded. */
    private record RowRead(Row row, KeyState state) {
    }
}
