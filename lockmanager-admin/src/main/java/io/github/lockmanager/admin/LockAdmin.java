package io.github.lockmanager.admin;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockWaiter;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.TimeSource;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What an operator sees of and does to the locks of one client in a store: the engine behind the admin page
 * ({@link LockAdminServlet}, {@link LockAdminServer}) and the {@code lockmanager} command.
 *
 * <p>The list is one scan of the store shared by every caller for {@link Builder#snapshotTtl the snapshot's time to
 * live}: many viewers refreshing a page cost one scan per period, not one each; callers that arrive during a scan wait
 * for its result. A failed scan is not kept: the next caller scans again. An action drops the snapshot, so the
 * next view shows its effect. Every action is logged with who asked.
 *
 * <p>Thread-safe. The store is not closed by this class: it belongs to whoever opened it.
 */
public final class LockAdmin {
    private static final Logger log = LoggerFactory.getLogger(LockAdmin.class);
    private static final Comparator<LockRecord> ORDER = Comparator.comparing((LockRecord r) -> r.key().name())
            .thenComparing(r -> r.key().level()).thenComparing(LockRecord::nodeId)
            .thenComparingLong(LockRecord::fencingToken);

    private final LockStore store;
    private final String clientId;
    private final String farmId;
    private final Duration heldTooLongThreshold;
    private final TimeSource timeSource;
    /**
     * One entry, the snapshot, as a future: the first caller after it expired scans in its own thread while the others
     * wait for that future, so neither a monitor nor the map is held while the store answers.
     */
    private final AsyncCache<Boolean, Scan> snapshot;

    private LockAdmin(Builder builder) {
        this.store = builder.store;
        this.clientId = builder.clientId;
        this.farmId = builder.farmId;
        this.heldTooLongThreshold = builder.heldTooLongThreshold;
        this.timeSource = builder.timeSource;
        this.snapshot = Caffeine.newBuilder().expireAfterWrite(builder.snapshotTtl)
                .ticker(timeSource::nanoTime).maximumSize(1).buildAsync();
    }

    /** An admin of {@code store}'s locks of client {@code "default"} and farm {@code "default"}, as the builder's. */
    public static Builder builder(LockStore store) {
        return new Builder(store);
    }

    /**
     * The live locks of this admin's client (its farm's DC locks and all its XDC locks), from the shared snapshot.
     *
     * @throws LockManagerException if the store failed to list them
     */
    public LockSnapshot snapshot() throws LockManagerException {
        CompletableFuture<Scan> mine = new CompletableFuture<>();
        CompletableFuture<Scan> current = snapshot.asMap().putIfAbsent(Boolean.TRUE, mine);
        if (current == null) {
            current = mine;
            try {
                mine.complete(new Scan(scan(), null));
            } catch (LockManagerException | RuntimeException e) {
                // kept out of the cache, so the next caller scans again; completed normally, so Caffeine does not log it
                snapshot.asMap().remove(Boolean.TRUE, mine);
                mine.complete(new Scan(null, e));
            } finally {
                if (!mine.isDone()) {
                    // an Error ended the scan: the callers waiting for it must not wait forever
                    snapshot.asMap().remove(Boolean.TRUE, mine);
                    mine.complete(new Scan(null, new IllegalStateException("the scan of the lock store ended abnormally")));
                }
            }
        }
        Scan scan = current.join();
        if (scan.failure instanceof LockManagerException failure) {
            throw failure;
        }
        if (scan.failure != null) {
            throw (RuntimeException) scan.failure;
        }
        return scan.snapshot;
    }

    /** What one scan of the store gave: a snapshot or the failure every caller waiting for it sees. */
    private record Scan(LockSnapshot snapshot, Exception failure) {
    }

    private LockSnapshot scan() throws LockManagerException {
        List<LockRecord> records = new ArrayList<>();
        List<LockRecord> requests = new ArrayList<>();
        Instant now = timeSource.now();
        for (LockRecord record : store.list()) {
            if (!inScope(record.key())) {
                continue;
            }
            if (!record.key().isRequests()) {
                records.add(record);
            } else if (record.expirationTime().isAfter(now)) {
                requests.add(record);
            }
        }
        records.sort(ORDER);
        // each key's line as the managers order it: registered first, then by token
        requests.sort(Comparator.comparing((LockRecord r) -> r.key().storageKey()).thenComparing(LockRecord::lockTime)
                .thenComparingLong(LockRecord::fencingToken).thenComparing(LockRecord::ownerToken));
        return new LockSnapshot(records, requests.stream().map(LockWaiter::of).toList(), now);
    }

    private boolean inScope(LockKey key) {
        return clientId == null || (key.clientId().equals(clientId)
                && (key.level() == LockLevel.XDC || farmId.equals(key.farmId())));
    }

    /** Whether {@code record} has been held longer than the threshold; never without one. */
    public boolean isHeldTooLong(LockRecord record, Instant now) {
        return heldTooLongThreshold != null
                && Duration.between(record.lockTime(), now).compareTo(heldTooLongThreshold) > 0;
    }

    /** The held-too-long threshold, {@code null} when none is set. */
    public Duration heldTooLongThreshold() {
        return heldTooLongThreshold;
    }

    /** Whose locks these are, for people: {@code client 'orders', farm 'eu-1'} or {@code every client}. */
    public String scope() {
        return clientId == null ? "every client" : "client '" + clientId + "', farm '" + farmId + "'";
    }

    /** This admin's clock, for "expires in" and "held for" next to a snapshot. */
    public Instant now() {
        return timeSource.now();
    }

    /**
     * Every record the store keeps of {@code key}, with no snapshot in between: each holder, and where the store keeps
     * them until it purges them, records whose lease has ended.
     *
     * @throws IllegalArgumentException if the key is not a valid lock key
     * @throws LockManagerException     if the store failed
     */
    public List<LockRecord> inspect(String key, LockLevel level) throws LockManagerException {
        return store.inspect(scoped(key, level));
    }

    /**
     * Asks every holder of {@code key} to stop, as {@link io.github.lockmanager.LockManager#abort} does: each holder's
     * node stops it within its abort poll interval (interrupts a holder thread, cancels a task's work).
     *
     * @return whether the key was locked
     * @throws IllegalArgumentException if the key is not a valid lock key or {@code requestedBy} is blank
     * @throws LockManagerException     if the store failed
     */
    public boolean abort(String key, LockLevel level, String requestedBy) throws LockManagerException {
        LockKey scoped = scoped(key, level);
        Require.notEmpty(requestedBy, "requestedBy");
        boolean marked = store.markAbort(scoped);
        snapshot.synchronous().invalidateAll();
        if (marked) {
            log.info("Abort of lock '{}' ({}, client {}) asked by {}: its holders' nodes stop them at their next poll "
                    + "(a thread is interrupted, a task's work cancelled)", key, level, scoped.clientId(), requestedBy);
        } else {
            log.info("Abort of lock '{}' ({}, client {}) asked by {}: it is not locked, nothing done", key, level,
                    scoped.clientId(), requestedBy);
        }
        return marked;
    }

    /**
     * Releases every live record of {@code key}, whoever holds it, as
     * {@link io.github.lockmanager.LockManager#forceRelease} does: each holder's node learns at its next check that the
     * lock is no longer its own. Logged at WARN, one line per holder released, with who asked.
     *
     * @return the records released (empty when the key was free)
     * @throws IllegalArgumentException if the key is not a valid lock key or {@code requestedBy} is blank
     * @throws LockManagerException     if the store failed; records released before the failure stay released
     */
    public List<LockRecord> forceRelease(String key, LockLevel level, String requestedBy) throws LockManagerException {
        LockKey scoped = scoped(key, level);
        Require.notEmpty(requestedBy, "requestedBy");
        List<LockRecord> released;
        try {
            released = store.releaseEvery(scoped);
        } finally {
            snapshot.synchronous().invalidateAll();
        }
        for (LockRecord record : released) {
            log.warn("Force-released lock '{}' ({}, client {}) held {} by node '{}', thread '{}', fencing token {}, as "
                            + "asked by {}; the holder's node stops it at its next check", key, level,
                    scoped.clientId(), record.mode().text(record.permits()), record.nodeId(), record.threadName(), record.fencingToken(),
                    requestedBy);
        }
        if (released.isEmpty()) {
            log.info("Force-release of lock '{}' ({}, client {}) asked by {}: it is not locked, nothing done", key,
                    level, scoped.clientId(), requestedBy);
        }
        return released;
    }

    /**
     * Deletes the records no lock uses any more, as the managers do now and then ({@link LockStore#purgeIdleRecords()}).
     *
     * @return how many records were deleted
     * @throws IllegalArgumentException if {@code requestedBy} is blank
     * @throws LockManagerException     if the store failed
     */
    public int cleanUp(String requestedBy) throws LockManagerException {
        Require.notEmpty(requestedBy, "requestedBy");
        int deleted = store.purgeIdleRecords();
        snapshot.synchronous().invalidateAll();
        log.info("Clean-up of idle lock records asked by {}: {} deleted", requestedBy, deleted);
        return deleted;
    }

    private LockKey scoped(String key, LockLevel level) {
        Require.notNull(level, "level");
        LockKey.requireName(key);
        if (clientId == null) {
            throw new IllegalStateException("an admin of every client cannot act on a key: name the client");
        }
        return LockKey.of(level, farmId, clientId, key);
    }

    /** Settings of a {@link LockAdmin}; each is checked when set. */
    public static final class Builder {
        private final LockStore store;
        private String clientId = "default";
        private String farmId = "default";
        private Duration snapshotTtl = Duration.ofSeconds(2);
        private Duration heldTooLongThreshold;
        private TimeSource timeSource = TimeSource.system();

        private Builder(LockStore store) {
            this.store = Require.notNull(store, "store");
        }

        /** The managers' client id, as {@code LockManagerBuilder.clientId}; default {@code "default"}. */
        public Builder clientId(String clientId) {
            this.clientId = LockKey.requireId("clientId", clientId);
            return this;
        }

        /** The farm of the DC keys shown and acted on, as {@code LockManagerBuilder.farmId}; default {@code "default"}. */
        public Builder farmId(String farmId) {
            this.farmId = LockKey.requireId("farmId", farmId);
            return this;
        }

        /** Lists the locks of every client and farm in the store; actions then refuse to run (they need a client). */
        public Builder allClients() {
            this.clientId = null;
            return this;
        }

        /**
         * How long one scan of the store serves every viewer; default 2 s. Zero scans for every view.
         *
         * @throws IllegalArgumentException if negative or longer than a minute (a page would show stale locks)
         */
        public Builder snapshotTtl(Duration ttl) {
            Require.notNull(ttl, "snapshotTtl");
            Require.argument(!ttl.isNegative() && ttl.compareTo(Duration.ofMinutes(1)) <= 0,
                    "snapshotTtl must be between 0 and 1 minute, was %s", ttl);
            this.snapshotTtl = ttl;
            return this;
        }

        /**
         * Flags locks held longer than this, on every node (judged from the record's lock time); default none.
         *
         * @throws IllegalArgumentException if not positive
         */
        public Builder heldTooLongThreshold(Duration threshold) {
            Require.notNull(threshold, "heldTooLongThreshold");
            Require.argument(!threshold.isNegative() && !threshold.isZero(),
                    "heldTooLongThreshold must be positive, was %s", threshold);
            this.heldTooLongThreshold = threshold;
            return this;
        }

        /** The clock of the snapshot's expiry and of "expires in"; tests move a manual one. */
        public Builder timeSource(TimeSource timeSource) {
            this.timeSource = Require.notNull(timeSource, "timeSource");
            return this;
        }

        public LockAdmin build() {
            return new LockAdmin(this);
        }
    }
}
