package io.github.lockmanager.spring.boot;

import io.github.lockmanager.LockLevel;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The lockmanager.* properties. A setting left out keeps the default of the builder it goes to
 * (LockManagerBuilder or the store's builder); a value the builder refuses fails startup with the property's
 * name and the builder's reason.
 */
@ConfigurationProperties(prefix = "lockmanager")
public class LockManagerProperties {

    /** Which store holds the locks. */
    public enum StoreType {
        /**
         * The store of the one client the application has: an Aerospike IAerospikeClient, an HBase Connection, a
         * Lettuce Redis client or spring.data.redis.* settings, or a DataSource, looked for in that order; startup fails
         * if there is none, or more than one.
         */
        AUTO,
        /** A relational database through the application's DataSource. */
        JDBC,
        /** HBase through the application's org.apache.hadoop.hbase.client.Connection. */
        HBASE,
        /** Aerospike through the application's com.aerospike.client.IAerospikeClient. */
        AEROSPIKE,
        /**
         * Redis or Valkey through the application's Lettuce RedisClient or RedisClusterClient, or else on a client of
         * its own made from the application's spring.data.redis.* connection settings.
         */
        REDIS,
        /** Locks of this JVM only, for tests and single-node development; never chosen by auto. */
        MEMORY
    }

    /** Whether a lock manager is configured at all. */
    private boolean enabled = true;

    /** The store that holds the locks; memory must be asked for by name. */
    private StoreType store = StoreType.AUTO;

    /** The client (application) the locks belong to; managers of one client share keys. Default default. */
    private String clientId;

    /** The data centre (farm) of this node: DC-level locks are shared within a farm. Default default. */
    private String farmId;

    /** This node's id, shown as the holder of its locks. Default: the host name and a random suffix. */
    private String nodeId;

    /** How long a lock stays held in the store without a renewal. Default 60s; at least 100ms. */
    private Duration lease;

    /** How often held leases are renewed, well inside the lease. Default: a third of the lease. */
    private Duration renewalInterval;

    /** How often held locks are checked for an abort asked on another node. Default 5s. */
    private Duration abortPollInterval;

    /** The longest pause of a blocking wait between two tries of a key held on another node. Default 100ms. */
    private Duration waitPollInterval;

    /**
     * Whether locks are taken in turn across nodes unless a spec says otherwise: waits register requests and new
     * acquisitions wait behind them (one store read each). Default false.
     */
    private Boolean fair;

    /** How often the store's idle records are purged. Default 10m. */
    private Duration purgeInterval;

    /** How many leases one store call renews. Default 200. */
    private Integer renewalBatchSize;

    /** The level of keys locked without one. Default DC. */
    private LockLevel defaultLevel;

    /** How long closing the manager (with the application context) waits for interrupted holders. Default 10s. */
    private Duration shutdownTimeout;

    /** The char that splits the paths of path locks (LockSpec.path). Default /. */
    private Character pathSeparator;

    /** Holds longer than this are logged with the stack that took them and flagged. Default: off. */
    private Duration heldTooLongThreshold;

    /** Whether the manager's MXBean is registered with the platform MBean server. Default false. */
    private Boolean registerMbean;

    /** The longest one store call may take, its retries included. Default 5s. */
    private Duration operationTimeout;

    /** How long a free or expired record stays before it is purged. Default 1h. */
    private Duration idleRecordRetention;

    private final Retry retry = new Retry();

    private final Jdbc jdbc = new Jdbc();

    private final Hbase hbase = new Hbase();

    private final Aerospike aerospike = new Aerospike();

    private final Redis redis = new Redis();

    private final Admin admin = new Admin();

    private final Leader leader = new Leader();

    /** How store calls that fail for a passing reason are retried; set all three or none (default: the store's). */
    public static class Retry {
        /** Tries per store call, the first included. */
        private Integer attempts;

        /** The wait before the second try, doubled for each next one. */
        private Duration initialBackoff;

        /** The longest wait between tries. */
        private Duration maxBackoff;

        public Integer getAttempts() {
            return attempts;
        }

        public void setAttempts(Integer attempts) {
            this.attempts = attempts;
        }

        public Duration getInitialBackoff() {
            return initialBackoff;
        }

        public void setInitialBackoff(Duration initialBackoff) {
            this.initialBackoff = initialBackoff;
        }

        public Duration getMaxBackoff() {
            return maxBackoff;
        }

        public void setMaxBackoff(Duration maxBackoff) {
            this.maxBackoff = maxBackoff;
        }
    }

    /** The relational store. */
    public static class Jdbc {
        /** The lock table, optionally schema.table; created when missing. Default lockmanager_locks. */
        private String tableName;

        /** Whether each release waits until PostgreSQL has flushed its commit to disk. Default false. */
        private Boolean durableReleases;

        public String getTableName() {
            return tableName;
        }

        public void setTableName(String tableName) {
            this.tableName = tableName;
        }

        public Boolean getDurableReleases() {
            return durableReleases;
        }

        public void setDurableReleases(Boolean durableReleases) {
            this.durableReleases = durableReleases;
        }
    }

    /** The HBase store. */
    public static class Hbase {
        /** The lock table, optionally namespace:table; created when missing. Default lockmanager_locks. */
        private String tableName;

        public String getTableName() {
            return tableName;
        }

        public void setTableName(String tableName) {
            this.tableName = tableName;
        }
    }

    /** The Aerospike store. */
    public static class Aerospike {
        /** The namespace of the lock sets. Default test. */
        private String namespace;

        /** The end of the lock sets' names. Default locks. */
        private String setSuffix;

        /** Every farm whose DC locks this application lists; checked for valid set names at startup. */
        private List<String> farmIds = new ArrayList<>();

        /**
         * Accept a namespace kept in memory only, whose restart lets another node take a key while its former holder
         * still works (until that holder's next renewal). Default false: such a namespace is refused at startup.
         */
        private boolean acceptTwoHoldersAfterRestart;

        public boolean isAcceptTwoHoldersAfterRestart() {
            return acceptTwoHoldersAfterRestart;
        }

        public void setAcceptTwoHoldersAfterRestart(boolean acceptTwoHoldersAfterRestart) {
            this.acceptTwoHoldersAfterRestart = acceptTwoHoldersAfterRestart;
        }

        public String getNamespace() {
            return namespace;
        }

        public void setNamespace(String namespace) {
            this.namespace = namespace;
        }

        public String getSetSuffix() {
            return setSuffix;
        }

        public void setSetSuffix(String setSuffix) {
            this.setSuffix = setSuffix;
        }

        public List<String> getFarmIds() {
            return farmIds;
        }

        public void setFarmIds(List<String> farmIds) {
            this.farmIds = farmIds;
        }
    }

    /** The Redis store. */
    public static class Redis {
        /** What every lock hash's name starts with. Default lockmanager:. */
        private String keyPrefix;

        /** How many replicas must acknowledge each grant and renewal (WAIT) before it counts. Default 0: none. */
        private int confirmReplicas;

        /** How long a grant or renewal waits for the replicas' acknowledgement. Default 100 ms. */
        private Duration confirmTimeout = Duration.ofMillis(100);

        /**
         * How long after a server that may have lost locks started new grants wait; also the longest lease granted.
         * Default 60s; 0 turns it off.
         */
        private Duration restartQuarantine;

        public Duration getRestartQuarantine() {
            return restartQuarantine;
        }

        public void setRestartQuarantine(Duration restartQuarantine) {
            this.restartQuarantine = restartQuarantine;
        }

        public String getKeyPrefix() {
            return keyPrefix;
        }

        public void setKeyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
        }

        public int getConfirmReplicas() {
            return confirmReplicas;
        }

        public void setConfirmReplicas(int confirmReplicas) {
            this.confirmReplicas = confirmReplicas;
        }

        public Duration getConfirmTimeout() {
            return confirmTimeout;
        }

        public void setConfirmTimeout(Duration confirmTimeout) {
            this.confirmTimeout = confirmTimeout;
        }
    }

    /** Spring Integration's leader candidates, elected through lockmanager. */
    public static class Leader {
        /**
         * Whether every Spring Integration {@code Candidate} bean is elected through lockmanager (its role the lock's
         * key), with {@code OnGrantedEvent} and {@code OnRevokedEvent} published. Default false: candidates that a
         * {@code LockRegistryLeaderInitiator} of the application already elects must not be elected twice.
         */
        private boolean enabled;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** The admin page, served by the application's servlet container. */
    public static class Admin {
        /** Whether the admin page is mounted. Default false. */
        private boolean enabled;

        /** Where the page is mounted. Default /lockmanager. */
        private String path = "/lockmanager";

        /** Whether abort, force-release and clean-up can be asked from the page; they need a signed-in user. */
        private boolean actionsEnabled;

        /** The role a signed-in user needs for the actions; empty for any signed-in user. */
        private String actionsRole;

        /** How long one listing of the store is shown to every viewer. Default 2s. */
        private Duration snapshotTtl;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getPath() {
            return path;
        }

        public void setPath(String path) {
            this.path = path;
        }

        public boolean isActionsEnabled() {
            return actionsEnabled;
        }

        public void setActionsEnabled(boolean actionsEnabled) {
            this.actionsEnabled = actionsEnabled;
        }

        public String getActionsRole() {
            return actionsRole;
        }

        public void setActionsRole(String actionsRole) {
            this.actionsRole = actionsRole;
        }

        public Duration getSnapshotTtl() {
            return snapshotTtl;
        }

        public void setSnapshotTtl(Duration snapshotTtl) {
            this.snapshotTtl = snapshotTtl;
        }
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public StoreType getStore() {
        return store;
    }

    public void setStore(StoreType store) {
        this.store = store;
    }

    public String getClientId() {
        return clientId;
    }

    public void setClientId(String clientId) {
        this.clientId = clientId;
    }

    public String getFarmId() {
        return farmId;
    }

    public void setFarmId(String farmId) {
        this.farmId = farmId;
    }

    public String getNodeId() {
        return nodeId;
    }

    public void setNodeId(String nodeId) {
        this.nodeId = nodeId;
    }

    public Duration getLease() {
        return lease;
    }

    public void setLease(Duration lease) {
        this.lease = lease;
    }

    public Duration getRenewalInterval() {
        return renewalInterval;
    }

    public void setRenewalInterval(Duration renewalInterval) {
        this.renewalInterval = renewalInterval;
    }

    public Duration getAbortPollInterval() {
        return abortPollInterval;
    }

    public void setAbortPollInterval(Duration abortPollInterval) {
        this.abortPollInterval = abortPollInterval;
    }

    public Duration getWaitPollInterval() {
        return waitPollInterval;
    }

    public void setWaitPollInterval(Duration waitPollInterval) {
        this.waitPollInterval = waitPollInterval;
    }

    public Boolean getFair() {
        return fair;
    }

    public void setFair(Boolean fair) {
        this.fair = fair;
    }

    public Duration getPurgeInterval() {
        return purgeInterval;
    }

    public void setPurgeInterval(Duration purgeInterval) {
        this.purgeInterval = purgeInterval;
    }

    public Integer getRenewalBatchSize() {
        return renewalBatchSize;
    }

    public void setRenewalBatchSize(Integer renewalBatchSize) {
        this.renewalBatchSize = renewalBatchSize;
    }

    public LockLevel getDefaultLevel() {
        return defaultLevel;
    }

    public void setDefaultLevel(LockLevel defaultLevel) {
        this.defaultLevel = defaultLevel;
    }

    public Duration getShutdownTimeout() {
        return shutdownTimeout;
    }

    public void setShutdownTimeout(Duration shutdownTimeout) {
        this.shutdownTimeout = shutdownTimeout;
    }

    public Character getPathSeparator() {
        return pathSeparator;
    }

    public void setPathSeparator(Character pathSeparator) {
        this.pathSeparator = pathSeparator;
    }

    public Duration getHeldTooLongThreshold() {
        return heldTooLongThreshold;
    }

    public void setHeldTooLongThreshold(Duration heldTooLongThreshold) {
        this.heldTooLongThreshold = heldTooLongThreshold;
    }

    public Boolean getRegisterMbean() {
        return registerMbean;
    }

    public void setRegisterMbean(Boolean registerMbean) {
        this.registerMbean = registerMbean;
    }

    public Duration getOperationTimeout() {
        return operationTimeout;
    }

    public void setOperationTimeout(Duration operationTimeout) {
        this.operationTimeout = operationTimeout;
    }

    public Duration getIdleRecordRetention() {
        return idleRecordRetention;
    }

    public void setIdleRecordRetention(Duration idleRecordRetention) {
        this.idleRecordRetention = idleRecordRetention;
    }

    public Retry getRetry() {
        return retry;
    }

    public Jdbc getJdbc() {
        return jdbc;
    }

    public Hbase getHbase() {
        return hbase;
    }

    public Aerospike getAerospike() {
        return aerospike;
    }

    public Redis getRedis() {
        return redis;
    }

    public Admin getAdmin() {
        return admin;
    }

    public Leader getLeader() {
        return leader;
    }
}
