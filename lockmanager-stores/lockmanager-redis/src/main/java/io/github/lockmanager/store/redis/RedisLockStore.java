package io.github.lockmanager.store.redis;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.support.ReleaseWaiters;
import io.github.lockmanager.store.support.RetryPolicy;
import io.github.lockmanager.store.support.StoreBuilder;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Locks in Redis or Valkey: one hash per key, holding the key's holders in every {@link io.github.lockmanager.LockMode},
 * its fencing counter and its abort mark ({@link RedisScripts}). Every decision is one Lua script the server runs
 * atomically on its own clock, sent by its SHA-1 ({@code EVALSHA}) and sent again with its text where the server's
 * script cache lacks it (flushed, restarted, failed over).
 *
 * <p>Round trips: acquire 1 in every mode, a refusal included (it names the holder); a hand-off between threads of a
 * node 1; release 1; renew and check 1 per batch (one script per hash slot on a cluster, sent together); abort 1; read
 * 1; list a {@code SCAN} step per {@value RedisListing#PAGE} keys and one read per lock, sent together. With
 * {@linkplain Builder#confirmReplicas replica confirmation}, a grant and a renewal carry a {@code WAIT} in the same
 * round trip.
 *
 * <p>Fencing tokens: a key's counter moves by one per grant; a hash created anew (a new key, one idle for the
 * {@linkplain Builder#idleRecordRetention retention}, or lost by a restart or a failover) starts by the kit's
 * {@link io.github.lockmanager.store.support.FencingEpoch} rule on the server's clock, above the key's earlier tokens
 * unless that clock went back. A hash's TTL is the retention plus the longest lease: Redis removes idle keys.
 * After a restart that may have lost locks, new grants wait for the {@linkplain Builder#restartQuarantine restart
 * quarantine}. {@link #initialize()} refuses a server older than 6.0 and one whose eviction policy may evict a hash.
 * Without {@linkplain Builder#confirmReplicas confirmation} a failover to a replica that lacked a grant can grant the
 * lock twice; the holder whose grant was lost is told at its next renewal. Waiters on other nodes are woken by the
 * release ({@link RedisReleaseListener}: a release publishes only when someone waits).
 *
 * <p>Every call, its retries included, ends within the {@linkplain Builder#operationTimeout operation timeout};
 * connecting is the exception: each of its tries (the retry policy's attempts) gets the operation timeout. The
 * store opens its own connections (one for commands, shared by every thread; one for release messages, opened by the
 * first wait) from the client given, and closes them; a client it made from a URI it shuts down too. Thread-safe.
 */
public final class RedisLockStore implements LockStore {
    /** The default {@linkplain Builder#restartQuarantine restart quarantine}: the manager's default lease. */
    public static final Duration DEFAULT_RESTART_QUARANTINE = Duration.ofSeconds(60);
    private static final Logger log = LoggerFactory.getLogger(RedisLockStore.class);

    private final RedisConnector connector;
    private final RedisLayout layout;
    private final ReplicaConfirmation confirmation;
    private final Duration operationTimeout;
    private final Duration retention;
    private final RetryPolicy retries;
    private final RedisQuarantine quarantine;
    private final RedisReleaseListener listener;
    private volatile Open open;
    private volatile boolean closed;

    /** The connection and what works over it, from {@link #initialize()} on. */
    private record Open(StatefulConnection<String, String> connection, RedisAccess access, RedisBatches batches,
                        RedisGrants grants) {
    }

    private RedisLockStore(Builder builder) {
        this.connector = builder.connector;
        this.layout = new RedisLayout(builder.keyPrefix);
        this.confirmation = builder.confirmation;
        this.operationTimeout = builder.getOperationTimeout();
        this.retention = builder.getIdleRecordRetention();
        this.retries = builder.getRetries();
        this.quarantine = new RedisQuarantine(builder.restartQuarantine);
        this.listener = new RedisReleaseListener(millis -> connector.connectPubSub(Math.min(millis,
                operationTimeout.toMillis())), layout.channel());
    }

    /** A store on the server (or Sentinel-watched master) {@code client} was created for; the client stays open. */
    public static Builder builder(RedisClient client) {
        return new Builder(RedisConnector.of(Require.notNull(client, "client"), null, false));
    }

    /** A store on the server (or Sentinel-watched master) {@code uri} names, through {@code client}, which stays open. */
    public static Builder builder(RedisClient client, RedisURI uri) {
        return new Builder(RedisConnector.of(Require.notNull(client, "client"), Require.notNull(uri, "uri"), false));
    }

    /** A store on the cluster {@code client} was created for; the client stays open. */
    public static Builder builder(RedisClusterClient client) {
        return new Builder(RedisConnector.of(Require.notNull(client, "client"), false));
    }

    /**
     * A store on its own client for {@code redisUri} ({@code redis://}, {@code rediss://}, {@code redis-sentinel://}),
     * shut down when the store closes.
     *
     * @throws IllegalArgumentException if {@code redisUri} is not a Redis URI
     */
    public static Builder builder(String redisUri) {
        RedisURI uri = RedisConnector.parse(redisUri);
        return new Builder(RedisConnector.of(RedisClient.create(uri), uri, true));
    }

    /** A store on its own client for {@code uri} (a server, or a Sentinel-watched master), shut down with the store. */
    public static Builder builder(RedisURI uri) {
        return new Builder(RedisConnector.of(RedisClient.create(Require.notNull(uri, "uri")), uri, true));
    }

    /** A store on its own client for the cluster reached through any of {@code redisUris}, shut down with the store. */
    public static Builder clusterBuilder(String... redisUris) {
        Require.argument(redisUris != null && redisUris.length > 0, "redisUris must name at least one cluster node");
        List<RedisURI> seeds = new ArrayList<>();
        for (String uri : redisUris) {
            seeds.add(RedisConnector.parse(uri));
        }
        return clusterBuilder(seeds);
    }

    /** A store on its own client for the cluster reached through any of {@code seeds}, shut down with the store. */
    public static Builder clusterBuilder(List<RedisURI> seeds) {
        Require.argument(seeds != null && !seeds.isEmpty(), "seeds must name at least one cluster node");
        return new Builder(RedisConnector.of(RedisClusterClient.create(seeds), true));
    }

    /**
     * Settings of a {@link RedisLockStore}; each setter checks its value and names it when refusing it. The operation
     * timeout is 10 ms at the least; the idle record retention is how long a key's hash, with its fencing counter,
     * outlives its last grant or renewal (beyond the lease); retries default to 4 attempts, backoff 20 ms doubling to
     * 1 s (a Sentinel failover takes seconds: raise the operation timeout to ride one out). Not thread-safe.
     */
    public static final class Builder extends StoreBuilder<Builder> {
        private final RedisConnector connector;
        private String keyPrefix = "lockmanager:";
        private ReplicaConfirmation confirmation = ReplicaConfirmation.NONE;
        private Duration restartQuarantine = DEFAULT_RESTART_QUARANTINE;

        private Builder(RedisConnector connector) {
            super(Duration.ofMillis(10), new RetryPolicy(4, Duration.ofMillis(20), Duration.ofSeconds(1)));
            this.connector = connector;
        }

        /**
         * What every lock hash's name starts with, and the release channel's: 1 to 64 chars, none of {@code *?[]\{}}.
         * Default {@code lockmanager:}.
         */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = RedisLayout.requirePrefix(keyPrefix);
            return this;
        }

        /**
         * Counts a grant or renewal only once {@code replicas} replicas acknowledged it ({@code WAIT}, in the same
         * round trip), waiting at most {@code timeout}; a grant not confirmed is withdrawn and tried again within the
         * operation timeout. It keeps a lock through a failover to a replica that acknowledged; Redis replication stays
         * asynchronous, so it does not make a failover safe when the promoted replica is another one. 0 turns it off
         * (the default). Not on a cluster.
         */
        public Builder confirmReplicas(int replicas, Duration timeout) {
            Require.argument(replicas >= 0 && replicas <= 16, "replicas must be between 0 and 16, was %s", replicas);
            Require.argument(timeout != null && !timeout.isNegative() && timeout.compareTo(Duration.ofSeconds(10)) <= 0
                    && (replicas == 0 || !timeout.isZero()), "confirmation timeout must be between 1 ms and 10 s, was %s",
                    timeout);
            this.confirmation = replicas == 0 ? ReplicaConfirmation.NONE : new ReplicaConfirmation(replicas, timeout);
            return this;
        }

        /**
         * After a server that may have lost locks starts (no persistence, or one that can lose acknowledged writes),
         * new grants wait this long from its start, so that each former holder is told before its key is granted
         * again; also the longest lease the store grants. The same on every node. Default 60 s; 0 to 1 day; zero
         * turns it off (a former holder then works on until its next renewal while another holds its key).
         */
        public Builder restartQuarantine(Duration restartQuarantine) {
            Require.argument(restartQuarantine != null && !restartQuarantine.isNegative()
                    && restartQuarantine.compareTo(Duration.ofDays(1)) <= 0,
                    "restartQuarantine must be between 0 and 1 day, was %s", restartQuarantine);
            this.restartQuarantine = restartQuarantine;
            return this;
        }

        /** @throws IllegalArgumentException if replica confirmation is asked of a cluster */
        public RedisLockStore build() {
            Require.argument(!(confirmation.isOn() && connector.isCluster()), "confirmReplicas is not offered on a "
                    + "Redis Cluster: WAIT there covers one node's connection, not the lock's");
            return new RedisLockStore(this);
        }
    }

    /**
     * Connects (retried as any call), refuses a server the store cannot keep its promises on (every master of a
     * cluster is asked) and loads the scripts, so that the first calls go by their SHA-1.
     */
    @Override
    public void initialize() throws LockManagerException {
        Open current = connect();
        List<String[]> infos = current.access().call("inspect the Redis server", timeout ->
                connector.infos(current.connection()));
        current.access().call("load the lock scripts", timeout -> current.access().load(timeout));
        quarantine.serverKeepsEveryWrite(RedisServerCheck.checkAll(infos, layout.prefix()));
    }

    private Open connect() throws LockManagerException {
        Open current = open;
        if (current != null) {
            return current;
        }
        // each try within the operation timeout, every try made: a new JVM's first try also starts Lettuce's threads
        StatefulConnection<String, String> connection = retries.callEachWithin("connect to Redis", operationTimeout,
                RedisFailures.INSTANCE, connector::connect);
        RedisAccess access = new RedisAccess(connection, connector.commands(connection), connector.isCluster(), layout,
                operationTimeout, retention, retries);
        Open made = new Open(connection, access, new RedisBatches(access, confirmation),
                new RedisGrants(access, confirmation, quarantine));
        boolean kept;
        synchronized (this) {
            kept = !closed && open == null;
            if (kept) {
                open = made;
            }
        }
        if (!kept) {
            connection.closeAsync();
            if (closed) {
                throw new LockManagerException(ErrorCode.CONNECTION_ERROR, "the Redis lock store is closed");
            }
        }
        return open;
    }

    private RedisAccess access() throws LockManagerException {
        Open current = open;
        return current != null ? current.access() : connect().access();
    }

    /**
     * One script: grants when the request's own entry is there already, or the predecessor's, or no live holder
     * conflicts; else names a conflicting holder ({@link RedisGrants}).
     */
    @Override
    public AcquireResult acquire(LockRequest request, Duration lease) throws LockManagerException {
        access();
        return open.grants().acquire(request, lease);
    }

    @Override
    public Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) throws LockManagerException {
        access();
        return open.batches().renew(handles, lease);
    }

    @Override
    public Map<LockHandle, HoldState> check(List<LockHandle> handles) throws LockManagerException {
        access();
        return open.batches().check(handles);
    }

    /**
     * One script: removes the handle's entry if it is there, publishing the release if someone waits for the key.
     * {@code true} if it was live, also when this call's earlier attempt removed it and its answer was lost.
     */
    @Override
    public boolean release(LockHandle handle) throws LockManagerException {
        access();
        return open.grants().release(handle);
    }

    @Override
    public Optional<LockRecord> read(LockKey key) throws LockManagerException {
        return holders(key, true).stream().findFirst();
    }

    /** Every holder entry of the key, those whose lease ended included, until the next grant removes them. */
    @Override
    public List<LockRecord> inspect(LockKey key) throws LockManagerException {
        return holders(key, false);
    }

    private List<LockRecord> holders(LockKey key, boolean liveOnly) throws LockManagerException {
        RedisAccess access = access();
        String[] keys = {layout.hash(key)};
        return access.call("read lock '" + key.name() + "'", timeout -> RedisEntries.holders(key,
                access.<List<?>>run(RedisScripts.READ, timeout, keys), liveOnly));
    }

    /** The means the store's parts share, once connected ({@link RedisLockData}). */
    RedisAccess connectedAccess() throws LockManagerException {
        return access();
    }

    @Override
    public List<LockRecord> list() throws LockManagerException {
        return RedisListing.list(access());
    }

    /**
     * One script, while the key has a live holder: the abort mark becomes the last token given, which asks every
     * holder granted so far (and no later one) to abort.
     */
    @Override
    public boolean markAbort(LockKey key) throws LockManagerException {
        RedisAccess access = access();
        String[] keys = {layout.hash(key)};
        return access.call("abort lock '" + key.name() + "'",
                timeout -> (Long) access.<List<?>>run(RedisScripts.ABORT, timeout, keys).get(0) == 1);
    }

    /** Nothing to do: a key's hash expires by its TTL, and each grant removes the entries whose lease ended. */
    @Override
    public int purgeIdleRecords() {
        return 0;
    }

    /** Makes a waiter of {@code key} known to its releasers: the hash is marked, so that they publish. */
    private ReleaseWaiters.Mark markWaiter(LockKey key) throws LockManagerException {
        RedisAccess access = access();
        String[] keys = {layout.hash(key)};
        return () -> access.call("wait for lock '" + key.name() + "'",
                attempt -> (Long) access.<List<?>>run(RedisScripts.MARK_WAITED, attempt, keys).get(0) == 1);
    }

    /**
     * Wakes the waiter at the release's message on the store's channel, after marking the key as waited for (one
     * script). A line of requests needs no mark: each request's grant marked it for good, so a fair waiter, whose own
     * request is in the line, watches it without a call.
     */
    @Override
    public Runnable watchRelease(LockKey key, Runnable wake) throws LockManagerException {
        return listener.watch(key.storageKey(), wake, key.isRequests() ? () -> true : markWaiter(key));
    }

    /**
     * Each withdrawal from a line of requests is published with its owner token (a line is marked for good at its
     * first request's grant), so its watchers need no call; {@code null} for a lock's own key.
     */
    @Override
    public Runnable watchWithdrawals(LockKey requests, Consumer<String> withdrawn) {
        return requests.isRequests() ? listener.watchWithdrawals(requests.storageKey(), withdrawn) : null;
    }

    /** The {@linkplain Builder#restartQuarantine restart quarantine}, or {@code null} when it is off. */
    @Override
    public Duration longestLease() {
        return quarantine.longestLease();
    }

    /**
     * Ends the restart quarantine now, until the next restart: for a new server (which the store cannot tell from one
     * that restarted without its locks) or one an operator knows lost nothing. On a cluster, one script per slot.
     *
     * @throws LockManagerException if a server could not be reached within the operation timeout
     */
    public void endRestartQuarantine() throws LockManagerException {
        RedisAccess access = access();
        access.call("end the restart quarantine", timeout -> RedisIncarnation.end(access, timeout));
        quarantine.ended(layout.prefix());
    }

    /** Closes the store's connections, and the client if the store made it. */
    @Override
    public void close() {
        Open current;
        synchronized (this) {
            closed = true;
            current = open;
        }
        listener.close();
        if (current != null) {
            current.connection().close();
        }
        connector.close();
    }

    @Override
    public String toString() {
        return "RedisLockStore[" + layout.prefix() + "*" + (connector.isCluster() ? ", cluster" : "") + ", "
                + quarantine + (confirmation.isOn() ? ", " + confirmation.replicas() + " replica(s) confirm" : "") + "]";
    }
}
