package io.github.lockmanager.store.cassandra;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlIdentifier;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DriverTimeoutException;
import com.datastax.oss.driver.api.core.cql.AsyncResultSet;
import com.datastax.oss.driver.api.core.cql.Row;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.cassandra.CassandraAccess.Swap;
import io.github.lockmanager.store.cassandra.CassandraSchema.Topology;
import io.github.lockmanager.store.cassandra.KeyStates.Change;
import io.github.lockmanager.store.support.RetryPolicy;
import io.github.lockmanager.store.support.StoreBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.regex.Pattern;

/**
 * Lock records in an Apache Cassandra table, decided by lightweight transactions. A key is a row (partition) whose
 * state cell holds the key's fencing counter and every holder ({@link KeyState}); each change of a key is one
 * compare-and-set of that cell ({@code UPDATE ... IF s = <the state it was decided on>}), the decision made in Java
 * ({@link KeyStates}), so every mode (exclusive, shared, permits, the intentions of hierarchical locks, and the
 * requests of fair waits) costs the same one Paxos round. Levels map to consistency ({@link CassandraAccess}):
 * {@code LOCAL_SERIAL}/{@code LOCAL_QUORUM} for DC-level keys, {@code SERIAL}/{@code QUORUM} for XDC-level ones.
 *
 * <p>Round trips (each a lightweight transaction unless said): acquire 1 on a key this store saw last or a new key, 2
 * when another node changed the key since (the first one fails and answers the key's state) or it is held (the failed
 * one is the answer); release and abort 1 likewise; renew and check one per key, all keys at once (check is a quorum
 * read, no transaction); isLocked 1 quorum read; getLocks a paged scan of the table. A refusal decided on a state this
 * store only remembered is read again (a serial read) before it is answered. The changes of one key that this store
 * has under way go one after another ({@link KeyTurns}): transactions on one partition that overlap contend in Paxos.
 *
 * <p>Whose clock: Cassandra has no clock a condition can read, so leases are judged by the nodes' clocks: a holder's
 * expiry is its writer's time plus the lease, and another node counts it live until that expiry plus
 * {@link Builder#maxClockSkew maxClockSkew}. As long as the nodes' clocks differ by less than that, no key is taken
 * while its holder still counts it held. Fencing tokens follow the kit's rule on the writer's clock: a key's counter
 * lives in its state cell and grows by 1 a grant; a cell that expired (idle past the retention) starts again above it.
 *
 * <p>Storage: every write sets the state cell's TTL to the last lease in it plus the {@linkplain
 * Builder#idleRecordRetention idle record retention}, so an idle key's state disappears by itself; nothing is purged
 * by scans. The store uses the application's {@link CqlSession}, and closes it on {@link #close()} only when told so.
 * Thread-safe.
 */
public final class CassandraLockStore implements LockStore {
    private static final Logger log = LoggerFactory.getLogger(CassandraLockStore.class);
    /** The longest TTL Cassandra accepts, 20 years. */
    private static final long MAX_TTL_SECONDS = 630_720_000L;

    private final CassandraAccess access;
    private final boolean closeSession;
    private final long graceMillis;
    private final long retentionSeconds;
    private final KnownStates known = new KnownStates(KnownStates.CAPACITY);
    private final KeyTurns turns = new KeyTurns();
    private volatile Topology topology;

    private CassandraLockStore(Builder builder) {
        this.access = new CassandraAccess(builder.session, builder.keyspace, builder.table,
                builder.getOperationTimeout(), builder.getRetries());
        this.closeSession = builder.closeSession;
        this.graceMillis = builder.maxClockSkew.toMillis();
        this.retentionSeconds = Math.max(1, builder.getIdleRecordRetention().toSeconds());
    }

    /** A builder for a store on {@code session}; the keyspace is the session's unless {@link Builder#keyspace} names one. */
    public static Builder builder(CqlSession session) {
        return new Builder(session);
    }

    /**
     * Settings of a {@link CassandraLockStore}; each setter checks its value and names it when refusing it. Defaults:
     * table {@code lockmanager_locks}, max clock skew 500 ms, operation timeout 5 s (its least 100 ms), retries 5
     * attempts with backoff 100 ms doubling to 2 s (1.5 s in all, past the driver's first reconnection after a
     * connection it dropped: its requests fail with "no connection available" until then), idle record retention 1
     * hour.
     */
    public static final class Builder extends StoreBuilder<Builder> {
        private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_]{1,48}");
        private final CqlSession session;
        private String keyspace;
        private String table = "lockmanager_locks";
        private Duration maxClockSkew = Duration.ofMillis(500);
        private boolean closeSession;

        private Builder(CqlSession session) {
            super(Duration.ofMillis(100), new RetryPolicy(5, Duration.ofMillis(100), Duration.ofSeconds(2)));
            this.session = Require.notNull(session, "session");
            this.keyspace = session.getKeyspace().map(CqlIdentifier::asInternal).orElse(null);
        }

        /** The keyspace of the lock table: 1 to 48 letters, digits or underscores. It must exist. */
        public Builder keyspace(String keyspace) {
            this.keyspace = name("keyspace", keyspace);
            return this;
        }

        /** The lock table, created by {@link CassandraLockStore#initialize()} when absent; default {@code lockmanager_locks}. */
        public Builder table(String table) {
            this.table = name("table", table);
            return this;
        }

        /**
         * How far apart the clocks of the nodes may be: another node's holder counts as live this long past its
         * expiry, so a key is never taken while its holder's own clock says it is held. 0 to 1 minute; default
         * 500 ms. Keep the nodes' clocks synchronized (NTP) well within it.
         */
        public Builder maxClockSkew(Duration maxClockSkew) {
            Require.argument(maxClockSkew != null && !maxClockSkew.isNegative()
                    && maxClockSkew.compareTo(Duration.ofMinutes(1)) <= 0,
                    "maxClockSkew must be between 0 and 1 min, was %s", maxClockSkew);
            this.maxClockSkew = maxClockSkew;
            return this;
        }

        /** Whether {@link CassandraLockStore#close()} closes the session. Default {@code false}: it is yours. */
        public Builder closeSessionOnClose(boolean closeSession) {
            this.closeSession = closeSession;
            return this;
        }

        /** @throws IllegalArgumentException if no keyspace was named and the session has none */
        public CassandraLockStore build() {
            Require.argument(keyspace != null, "keyspace must be given: the session has none (builder.keyspace(...))");
            return new CassandraLockStore(this);
        }

        private static String name(String what, String value) {
            Require.argument(value != null && NAME.matcher(value).matches(),
                    "%s must be 1 to 48 letters, digits or underscores, was '%s'", what, value);
            return value;
        }
    }

    /**
     * Checks the keyspace's replication against the levels' consistency, then creates the table when absent or checks
     * the layout of an existing one ({@link CassandraSchema}).
     *
     * @throws LockManagerException {@code TABLE_CREATION_ERROR} naming what is wrong: no keyspace, a replication that
     *                              cannot serve DC-level locks, a table of another layout; {@code CONNECTION_ERROR} or
     *                              {@code RETRIES_EXHAUSTED} if the cluster cannot be reached
     */
    @Override
    public void initialize() throws LockManagerException {
        topology = new CassandraSchema(access).createOrCheck();
        // prepared now, on the caller's thread: a change may later start on a driver thread, which must not block
        access.callEachWithin("prepare the lock table's statements", remaining -> {
            access.prepareStatements();
            return null;
        });
    }

    @Override
    public AcquireResult acquire(LockRequest request, Duration lease) throws LockManagerException {
        long leaseMillis = lease.toMillis();
        return change("acquire lock '" + request.key().name() + "' " + request.mode(), request.key(),
                (state, now) -> KeyStates.acquire(state, request, leaseMillis, now, graceMillis));
    }

    @Override
    public Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) throws LockManagerException {
        long leaseMillis = lease.toMillis();
        return eachKey("renew " + handles.size() + " locks", handles, (key, owners, deadline) -> changeAsync(key,
                (state, now) -> KeyStates.renew(state, owners, leaseMillis, now), deadline));
    }

    @Override
    public Map<LockHandle, HoldState> check(List<LockHandle> handles) throws LockManagerException {
        return eachKey("check " + handles.size() + " locks", handles, (key, owners, deadline) -> readAsync(key, false,
                deadline).thenApply(state -> KeyStates.check(state, owners, System.currentTimeMillis())));
    }

    @Override
    public boolean release(LockHandle handle) throws LockManagerException {
        return change("release lock '" + handle.key().name() + "'", handle.key(),
                (state, now) -> KeyStates.release(state, handle.ownerToken()));
    }

    @Override
    public Optional<LockRecord> read(LockKey key) throws LockManagerException {
        List<Holder> live = KeyStates.live(readState("read lock '" + key.name() + "'", key), System.currentTimeMillis(),
                graceMillis);
        return live.isEmpty() ? Optional.empty() : Optional.of(live.get(0).record(key));
    }

    @Override
    public List<LockRecord> inspect(LockKey key) throws LockManagerException {
        List<LockRecord> records = new ArrayList<>();
        for (Holder h : readState("inspect lock '" + key.name() + "'", key).holders()) {
            records.add(h.record(key));
        }
        return records;
    }

    @Override
    public List<LockRecord> list() throws LockManagerException {
        Topology seen = topology;
        if (seen != null && seen.multiDataCentre()) {
            // each level at its own consistency: a DC-level write is on a local quorum, an XDC-level one on a global one
            List<LockRecord> records = scan(CassandraAccess.quorumOf(LockLevel.DC), LockLevel.DC);
            records.addAll(scan(CassandraAccess.quorumOf(LockLevel.XDC), LockLevel.XDC));
            return records;
        }
        return scan(CassandraAccess.quorumOf(LockLevel.DC), null);
    }

    @Override
    public boolean markAbort(LockKey key) throws LockManagerException {
        return change("abort lock '" + key.name() + "'", key,
                (state, now) -> KeyStates.markAbort(state, now, graceMillis));
    }

    @Override
    public void close() {
        if (closeSession) {
            access.session().close();
        }
    }

    @Override
    public String toString() {
        return access + ", max clock skew " + graceMillis + " ms";
    }

    /** The means the store's parts share ({@link CassandraRowData}). */
    CassandraAccess access() {
        return access;
    }

    // ---- one change of one key: compare-and-set of its state cell until it applies or needs no write

    /** One conditional write of a key's state cell: {@link CassandraAccess#compareAndSet}, or one with data. */
    interface Writer {
        CompletableFuture<Swap> write(LockKey key, ByteBuffer expected, ByteBuffer next, int ttlSeconds,
                                      long timeoutMillis);
    }

    private <T> T change(String what, LockKey key, BiFunction<KeyState, Long, Change<T>> decide)
            throws LockManagerException {
        return change(what, key, decide, access::compareAndSet);
    }

    /** A change of {@code key} decided by {@code decide} and written by {@code writer}, within the store's bounds. */
    <T> T change(String what, LockKey key, BiFunction<KeyState, Long, Change<T>> decide, Writer writer)
            throws LockManagerException {
        return access.call(what, remaining -> CassandraAccess.await(
                changeAsync(key, decide, writer, deadlineIn(remaining)), remaining));
    }

    private <T> CompletableFuture<T> changeAsync(LockKey key, BiFunction<KeyState, Long, Change<T>> decide,
                                                 long deadline) {
        return changeAsync(key, decide, access::compareAndSet, deadline);
    }

    private <T> CompletableFuture<T> changeAsync(LockKey key, BiFunction<KeyState, Long, Change<T>> decide,
                                                 Writer writer, long deadline) {
        return turns.inTurn(key.storageKey(), () -> {
            KnownStates.Known last = known.get(key.storageKey());
            return last == null ? step(key, null, KeyState.EMPTY, false, decide, writer, deadline)
                    : step(key, last.cell(), last.state(), false, decide, writer, deadline);
        });
    }

    /**
     * Decides on {@code state} (the cell {@code cell} holds, or held when last seen) and writes the change, conditional
     * on that cell; a failed write answers the cell's value, decided on again. A decision that writes nothing is
     * answered only from a value read from the store ({@code confirmed}), never from one only remembered.
     */
    private <T> CompletableFuture<T> step(LockKey key, ByteBuffer cell, KeyState state, boolean confirmed,
                                          BiFunction<KeyState, Long, Change<T>> decide, Writer writer,
                                          long deadline) {
        long left = leftMillis(deadline);
        if (left <= 0) {
            return CompletableFuture.failedFuture(new DriverTimeoutException("the call's time ran out while the"
                    + " state of '" + key.name() + "' kept changing"));
        }
        Change<T> change = decide.apply(state, System.currentTimeMillis());
        if (change.next() == null) {
            if (confirmed) {
                return CompletableFuture.completedFuture(change.answer());
            }
            return access.readState(key, true, left).thenCompose(read -> {
                KeyState now = remember(key, read);
                return step(key, read, now, true, decide, writer, deadline);
            });
        }
        ByteBuffer next = change.next().encode();
        return writer.write(key, cell, next, ttlSeconds(change.next()), left).thenCompose((Swap swap) -> {
            if (swap.applied()) {
                known.put(key.storageKey(), next, change.next());
                return CompletableFuture.completedFuture(change.answer());
            }
            KeyState now = remember(key, swap.current());
            return step(key, swap.current(), now, true, decide, writer, deadline);
        });
    }

    private KeyState remember(LockKey key, ByteBuffer cell) {
        KeyState state = KeyState.decode(cell);
        known.put(key.storageKey(), cell, state);
        return state;
    }

    private int ttlSeconds(KeyState next) {
        long now = System.currentTimeMillis();
        long leaseSeconds = (KeyStates.lastExpiry(next, now) - now + graceMillis + 999) / 1000;
        return (int) Math.min(MAX_TTL_SECONDS, leaseSeconds + retentionSeconds);
    }

    // ---- batches: one call per key, all keys at once

    private interface PerKey {
        CompletableFuture<Map<String, HoldState>> run(LockKey key, List<String> owners, long deadline);
    }

    /**
     * Runs {@code perKey} for every key of {@code handles} at once and gathers the answers; a key whose call failed is
     * left out (its holders' leases count as unconfirmed), unless every key's did, which fails the call.
     */
    private Map<LockHandle, HoldState> eachKey(String what, List<LockHandle> handles, PerKey perKey)
            throws LockManagerException {
        Map<LockKey, List<LockHandle>> byKey = new LinkedHashMap<>();
        for (LockHandle handle : handles) {
            byKey.computeIfAbsent(handle.key(), k -> new ArrayList<>(1)).add(handle);
        }
        return access.call(what, remaining -> {
            long deadline = deadlineIn(remaining);
            Map<LockKey, CompletableFuture<Map<String, HoldState>>> calls = new LinkedHashMap<>();
            for (Map.Entry<LockKey, List<LockHandle>> entry : byKey.entrySet()) {
                List<String> owners = new ArrayList<>(entry.getValue().size());
                for (LockHandle handle : entry.getValue()) {
                    owners.add(handle.ownerToken());
                }
                calls.put(entry.getKey(), perKey.run(entry.getKey(), owners, deadline)
                        .orTimeout(Math.max(1, leftMillis(deadline)), TimeUnit.MILLISECONDS));
            }
            try {
                CompletableFuture.allOf(calls.values().toArray(CompletableFuture[]::new)).exceptionally(e -> null)
                        .get(Math.max(1, leftMillis(deadline)) + 50, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                calls.values().forEach(call -> call.cancel(true));
                Thread.currentThread().interrupt();
                throw e;
            } catch (TimeoutException e) {
                // each call has its own timeout; this one only if a machine too loaded to run them has missed it
                calls.values().forEach(call -> call.cancel(true));
                throw new DriverTimeoutException(what + ": no answer within the call's time");
            }
            Map<LockHandle, HoldState> answers = new LinkedHashMap<>();
            Exception failure = null;
            for (Map.Entry<LockKey, CompletableFuture<Map<String, HoldState>>> call : calls.entrySet()) {
                Map<String, HoldState> perOwner;
                try {
                    perOwner = call.getValue().getNow(null);
                } catch (RuntimeException e) {
                    failure = CassandraAccess.unwrap(e);
                    log.debug("{}: lock '{}' not answered: {}", what, call.getKey().name(), failure.toString());
                    continue;
                }
                for (LockHandle handle : byKey.get(call.getKey())) {
                    answers.put(handle, perOwner.get(handle.ownerToken()));
                }
            }
            if (answers.isEmpty() && failure != null) {
                throw failure;
            }
            return answers;
        });
    }

    // ---- reads

    private CompletableFuture<KeyState> readAsync(LockKey key, boolean serial, long deadline) {
        return access.readState(key, serial, Math.max(1, leftMillis(deadline))).thenApply(KeyState::decode);
    }

    private KeyState readState(String what, LockKey key) throws LockManagerException {
        return access.call(what, remaining -> CassandraAccess.await(
                readAsync(key, false, deadlineIn(remaining)), remaining));
    }

    private List<LockRecord> scan(ConsistencyLevel consistency, LockLevel only) throws LockManagerException {
        return access.call("list locks", remaining -> {
            long deadline = deadlineIn(remaining);
            List<LockRecord> records = new ArrayList<>();
            AsyncResultSet page = CassandraAccess.await(access.scan(consistency, 500, remaining), remaining);
            long now = System.currentTimeMillis();
            while (true) {
                for (Row row : page.currentPage()) {
                    LockKey key = LockKey.parse(row.getString(0));
                    if (only != null && key.level() != only) {
                        continue;
                    }
                    for (Holder h : KeyStates.live(KeyState.decode(row.getByteBuffer(1)), now, graceMillis)) {
                        records.add(h.record(key));
                    }
                }
                if (!page.hasMorePages()) {
                    return records;
                }
                page = CassandraAccess.await(page.fetchNextPage().toCompletableFuture(), leftMillis(deadline));
            }
        });
    }

    private static long deadlineIn(long millis) {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    }

    /** Milliseconds left to {@code deadline}, a {@link System#nanoTime()} reading. */
    private static long leftMillis(long deadline) {
        return TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
    }
}
