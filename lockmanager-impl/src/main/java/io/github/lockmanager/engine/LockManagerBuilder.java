package io.github.lockmanager.engine;

import io.github.lockmanager.LockEventListener;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLossListener;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.TimeSource;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockStore;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;

/**
 * Builds a {@link LockManager} on a {@link LockStore}. Each setter checks its value at once and throws an
 * {@link IllegalArgumentException} that names the setting; {@link #build()} checks how the settings fit
 * together.
 *
 * <pre>{@code
 * LockManager locks = LockManagerBuilder.newBuilder()
 *         .store(new InMemoryLockStore())
 *         .clientId("billing")
 *         .build();
 * }</pre>
 *
 * <p>Not thread-safe; a builder may build several managers (each gets its own threads).
 */
public final class LockManagerBuilder {
    /** The longest farm or client id: stores size their key columns by it. */
    public static final int MAX_ID_LENGTH = 64;
    /** The longest node id: stores size their owner columns by it. */
    public static final int MAX_NODE_ID_LENGTH = 128;
    /** The shortest lease accepted. */
    public static final Duration MIN_LEASE = LeasePolicy.SHORTEST;
    /** The longest lease, renewal, poll or purge interval accepted. */
    public static final Duration MAX_INTERVAL = LeasePolicy.LONGEST;
    /** The longest shutdown timeout accepted. */
    public static final Duration MAX_SHUTDOWN_TIMEOUT = Duration.ofHours(1);

    private LockStore store;
    private String clientId = "default";
    private String farmId = "default";
    private String nodeId;
    private Duration lease = Duration.ofSeconds(60);
    private Duration renewalInterval;
    private Duration abortPollInterval = Duration.ofSeconds(5);
    private int renewalBatchSize = 200;
    private LockLevel defaultLevel = LockLevel.DC;
    private TimeSource timeSource = TimeSource.system();
    private LockLossListener lossListener = (lock, holder, reason) -> { };
    private LockEventListener eventListener = LockEventListener.NONE;
    private Duration shutdownTimeout = Duration.ofSeconds(10);
    private Duration purgeInterval = Duration.ofMinutes(10);
    private boolean registerMBean;
    private char pathSeparator = '/';
    private Duration heldTooLong = Duration.ZERO;
    private Duration waitPollInterval = Duration.ofMillis(100);
    private int maxLocalHandOffs = 4;
    private boolean fair;

    private LockManagerBuilder() {
    }

    public static LockManagerBuilder newBuilder() {
        return new LockManagerBuilder();
    }

    /**
     * The admin view of a manager this builder built, the same one {@link #registerMBean(boolean)} shows over JMX.
     *
     * @throws IllegalArgumentException if {@code manager} was not built by a {@code LockManagerBuilder}
     */
    public static LockManagerMXBean admin(LockManager manager) {
        Require.argument(manager instanceof LockEngine, "manager must be built by LockManagerBuilder, was %s",
                manager == null ? "null" : manager.getClass().getName());
        return ((LockEngine) manager).admin();
    }

    /** Required: where the lock records live. May be shared by several managers. */
    public LockManagerBuilder store(LockStore store) {
        this.store = Require.notNull(store, "store");
        return this;
    }

    /**
     * The application's id: managers with different client ids never contend. 1 to {@value #MAX_ID_LENGTH}
     * chars of valid Unicode text without {@code '#'} or NUL. Default {@code "default"}.
     */
    public LockManagerBuilder clientId(String clientId) {
        this.clientId = checkId("clientId", clientId, MAX_ID_LENGTH);
        return this;
    }

    /**
     * The data centre (farm) id that scopes {@link LockLevel#DC} keys. 1 to {@value #MAX_ID_LENGTH} chars of
     * valid Unicode text without {@code '#'} or NUL. Default {@code "default"}.
     */
    public LockManagerBuilder farmId(String farmId) {
        this.farmId = checkId("farmId", farmId, MAX_ID_LENGTH);
        return this;
    }

    /**
     * This node's id, shown as the owner of its locks; 1 to {@value #MAX_NODE_ID_LENGTH} chars of valid Unicode
     * text without {@code '#'} or NUL. Default:
     * host name, process id and a random part, so two managers never share one by accident.
     */
    public LockManagerBuilder nodeId(String nodeId) {
        this.nodeId = checkId("nodeId", nodeId, MAX_NODE_ID_LENGTH);
        return this;
    }

    /** How long a lock outlives its node's last renewal. 100 ms to 1 day. Default 60 s. */
    public LockManagerBuilder lease(Duration lease) {
        this.lease = LeasePolicy.checkLease(lease);
        return this;
    }

    /**
     * How often held locks are renewed: at most a third of the lease, so that two renewals can fail before a
     * lease runs out. Default: a third of the lease.
     */
    public LockManagerBuilder renewalInterval(Duration renewalInterval) {
        this.renewalInterval = checkInterval("renewalInterval", renewalInterval);
        return this;
    }

    /**
     * How soon a holder on this node hears of an abort asked for on another node, at the latest. Between
     * renewals it costs one store read per batch of held locks. At most 1 day. Default 5 s.
     */
    public LockManagerBuilder abortPollInterval(Duration abortPollInterval) {
        this.abortPollInterval = checkInterval("abortPollInterval", abortPollInterval);
        return this;
    }

    /**
     * How often this manager asks the store to delete records idle for longer than the store's retention
     * ({@link LockStore#purgeIdleRecords()}), so that the store holds the keys in use rather than every key ever
     * locked. {@link Duration#ZERO} turns it off (for example when one node, or the DBA, does it). At most 1 day.
     * Default 10 minutes.
     */
    public LockManagerBuilder purgeInterval(Duration purgeInterval) {
        Require.notNull(purgeInterval, "purgeInterval");
        if (!purgeInterval.isZero()) {
            checkInterval("purgeInterval", purgeInterval);
        }
        this.purgeInterval = purgeInterval;
        return this;
    }

    /** How many locks one renewal or abort-poll store call carries: 1 to 10,000. Default 200. */
    public LockManagerBuilder renewalBatchSize(int renewalBatchSize) {
        Require.argument(renewalBatchSize >= 1 && renewalBatchSize <= 10_000,
                "renewalBatchSize must be between 1 and 10000, was %d", renewalBatchSize);
        this.renewalBatchSize = renewalBatchSize;
        return this;
    }

    /** The level of the methods without a level argument. Default {@link LockLevel#DC}. */
    public LockManagerBuilder defaultLevel(LockLevel defaultLevel) {
        this.defaultLevel = Require.notNull(defaultLevel, "defaultLevel");
        return this;
    }

    /**
     * The clock leases are measured by. Default {@link TimeSource#system()}. Tests inject a manual one, together
     * with a store that ends leases by the same clock ({@link io.github.lockmanager.store.memory.InMemoryLockStore}
     * given that time source): {@link #build()} refuses a time source other than the store's
     * {@link LockStore#leaseClock()}, since the manager would then tell a holder of its loss by one clock while
     * the store frees the key by another.
     */
    public LockManagerBuilder timeSource(TimeSource timeSource) {
        this.timeSource = Require.notNull(timeSource, "timeSource");
        return this;
    }

    /** Told whenever a lock held on this node is lost. Default: none (the loss is still logged). */
    public LockManagerBuilder lossListener(LockLossListener lossListener) {
        this.lossListener = Require.notNull(lossListener, "lossListener");
        return this;
    }

    /**
     * Told of every lock event of this manager (acquired, refused, released, renewed, lost, aborted, held too long),
     * for metrics such as {@code lockmanager-micrometer}'s. Default: none, which costs nothing.
     */
    public LockManagerBuilder eventListener(LockEventListener eventListener) {
        this.eventListener = Require.notNull(eventListener, "eventListener");
        return this;
    }

    /** How long {@link LockManager#close()} waits for interrupted holders to unlock. 0 to 1 hour; default 10 s. */
    public LockManagerBuilder shutdownTimeout(Duration shutdownTimeout) {
        Require.notNull(shutdownTimeout, "shutdownTimeout");
        Require.argument(!shutdownTimeout.isNegative() && shutdownTimeout.compareTo(MAX_SHUTDOWN_TIMEOUT) <= 0,
                "shutdownTimeout must be between 0 and %s, was %s", MAX_SHUTDOWN_TIMEOUT, shutdownTimeout);
        this.shutdownTimeout = shutdownTimeout;
        return this;
    }

    /**
     * The char that splits the paths of {@link io.github.lockmanager.LockSpec#path}: {@code "foo/bar"} is {@code bar} below
     * {@code foo}. Any char but NUL and a surrogate; every manager of one client must use the same one, since the
     * path's prefixes are the keys locked. Default {@code '/'}. Keys of the other methods are never split.
     */
    public LockManagerBuilder pathSeparator(char pathSeparator) {
        Require.argument(pathSeparator != '\u0000' && !Character.isSurrogate(pathSeparator),
                "pathSeparator must be a char of its own, not NUL or half of a surrogate pair, was U+%04X",
                (int) pathSeparator);
        this.pathSeparator = pathSeparator;
        return this;
    }

    /**
     * Reports holds that outlive {@code threshold} (HikariCP's leak detection is the model): one warning per
     * acquisition with the key, the holder thread and the stack where the lock was taken, and one info line when it
     * is finally released; {@link LockManagerMXBean#getHeldLocks()} flags them meanwhile. The stack is captured at
     * each acquisition only when a threshold is set. 1 ms to 1 day; default: off.
     */
    public LockManagerBuilder heldTooLongThreshold(Duration threshold) {
        this.heldTooLong = checkInterval("heldTooLongThreshold", threshold);
        return this;
    }

    /**
     * How many times in a row a key may pass straight from a holder to another thread of this node waiting for it
     * ({@link LockManager#waitForLock} and its siblings), without being released in the store: such a hand-off costs one store call instead of a
     * release and an acquisition, and the new holder gets a new owner token and a higher fencing token as with any
     * acquisition. After that many, the key is released, so that waiters on other nodes get their chance. 0 to 1000;
     * 0 turns it off. Default 4.
     */
    public LockManagerBuilder maxLocalHandOffs(int maxLocalHandOffs) {
        Require.argument(maxLocalHandOffs >= 0 && maxLocalHandOffs <= 1000,
                "maxLocalHandOffs must be between 0 and 1000, was %d", maxLocalHandOffs, waitPollInterval);
        this.maxLocalHandOffs = maxLocalHandOffs;
        return this;
    }

    /**
     * Whether locks are taken in turn when a spec does not say ({@link LockSpec#fair(boolean)}): every new acquisition
     * of this manager ({@link LockManager#lock(String)} included; never a re-entry) first reads the key's line of
     * requests in the store and is refused while an earlier request waits, and a refused wait registers a request of
     * its own. Costs one store read per new acquisition; see docs/requests.md. Default {@code false}: a node's waiters
     * queue per key, and a key is handed over within a node at most {@link #maxLocalHandOffs} times in a row.
     */
    public LockManagerBuilder fair(boolean fair) {
        this.fair = fair;
        return this;
    }

    /**
     * The longest pause between two tries of a {@link LockManager#waitForLock blocking wait} for a key held on
     * another node, where the store does not announce releases (or between two checks where it does): the first pause
     * is an eighth of it, each next one up to twice as long, jittered so that waiters drift apart. A holder on this
     * node wakes its waiters when it lets go, without polling. 1 ms to {@link #MAX_INTERVAL}; default 100 ms.
     */
    public LockManagerBuilder waitPollInterval(Duration waitPollInterval) {
        checkInterval("waitPollInterval", waitPollInterval);
        Require.argument(waitPollInterval.toMillis() >= 1, "waitPollInterval must be at least 1 ms, was %s",
                waitPollInterval);
        this.waitPollInterval = waitPollInterval;
        return this;
    }

    /**
     * Whether the manager registers its {@link LockManagerMXBean} with the platform MBean server (and removes it on
     * close). Default {@code false}.
     */
    public LockManagerBuilder registerMBean(boolean registerMBean) {
        this.registerMBean = registerMBean;
        return this;
    }

    /**
     * Initializes the store and starts the manager's two threads ({@code lockmanager-<node>-keeper} and
     * {@code lockmanager-<node>-watchdog}), which stop on {@link LockManager#close()}.
     *
     * @throws IllegalStateException    if no store was set, the renewal interval is not well inside the lease, or
     *                                  the time source is not the one the store ends leases by
     * @throws IllegalArgumentException if the lease is longer than the store grants ({@link LockStore#longestLease()})
     * @throws LockManagerException  if the store cannot be initialized
     */
    public LockManager build() throws LockManagerException {
        if (store == null) {
            throw new IllegalStateException("store must be set before build()");
        }
        if (timeSource != TimeSource.system() && store.leaseClock() != timeSource) {
            throw new IllegalStateException("timeSource " + timeSource + " is not the clock store " + store
                    + " ends leases by (" + store.leaseClock() + "): the manager would tell a holder of its loss by one "
                    + "clock while the store frees the key by another. Use TimeSource.system() with this store, or an "
                    + "InMemoryLockStore built with the same time source");
        }
        CallLeases.checkStoreGrants(store, lease);
        LeasePolicy leases = LeasePolicy.of(lease, renewalInterval, abortPollInterval);
        EngineSettings settings = new EngineSettings(store, clientId, farmId,
                nodeId != null ? nodeId : defaultNodeId(), leases, renewalBatchSize, defaultLevel, timeSource,
                lossListener, eventListener, shutdownTimeout, purgeInterval, registerMBean, pathSeparator, heldTooLong,
                maxLocalHandOffs, waitPollInterval, fair);
        store.initialize();
        return LockEngine.start(settings);
    }

    private static Duration checkPositive(String name, Duration value) {
        Require.notNull(value, name);
        Require.argument(!value.isZero() && !value.isNegative(), "%s must be positive, was %s", name, value);
        return value;
    }

    private static Duration checkInterval(String name, Duration value) {
        checkPositive(name, value);
        Require.argument(value.compareTo(MAX_INTERVAL) <= 0, "%s must be at most %s, was %s", name, MAX_INTERVAL, value);
        return value;
    }

    private static String checkId(String name, String id, int maxLength) {
        LockKey.requireId(name, id);
        Require.argument(id.length() <= maxLength, "%s must be at most %d chars, was %d", name, maxLength, id.length());
        return id;
    }

    private static String defaultNodeId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "unknown-host";
        }
        byte[] random = new byte[3];
        new SecureRandom().nextBytes(random);
        String id = host.replace(LockKey.SEPARATOR, '_') + "-" + ProcessHandle.current().pid() + "-"
                + HexFormat.of().formatHex(random);
        return id.length() <= MAX_NODE_ID_LENGTH ? id : id.substring(id.length() - MAX_NODE_ID_LENGTH);
    }
}
