package io.github.lockmanager.store.cassandra;

import com.datastax.oss.driver.api.core.cql.AsyncResultSet;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Creates the lock table when absent and checks what the store relies on: the keyspace exists (its replication is the
 * operator's choice, so the store never creates it), its replication can serve both levels' consistency, and an
 * existing table has the store's layout.
 *
 * <p>The levels' rule ({@link CassandraAccess}): {@code LOCAL_SERIAL} needs replicas of the key in the local data
 * centre, so with several data centres the keyspace must use {@code NetworkTopologyStrategy} and name the local one
 * ({@code SimpleStrategy} places replicas without regard to data centres, and a local quorum of them means nothing).
 * {@code SERIAL} works on any replication. Fewer than 3 replicas in the local data centre is allowed with a warning:
 * a quorum of 1 or 2 does not outlive the loss of one of them.
 */
final class CassandraSchema {
    private static final Logger log = LoggerFactory.getLogger(CassandraSchema.class);

    private final CassandraAccess access;

    /** The data centres of the cluster and the local one, as {@link #check()} read them. */
    record Topology(String localDataCentre, Set<String> dataCentres) {
        boolean multiDataCentre() {
            return dataCentres.size() > 1;
        }
    }

    CassandraSchema(CassandraAccess access) {
        this.access = access;
    }

    /** Checks the keyspace, creates or checks the table; answers the topology seen. */
    Topology createOrCheck() throws LockManagerException {
        Topology topology = access.callEachWithin("read the cluster's data centres", this::topology);
        Map<String, String> replication = access.callEachWithin("read keyspace '" + access.keyspace() + "'",
                this::replication);
        if (replication == null) {
            throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "keyspace '" + access.keyspace()
                    + "' does not exist: create it with the replication your lock levels need (NetworkTopologyStrategy"
                    + " naming each data centre whose nodes take locks), then start the lock manager again");
        }
        checkReplication(replication, topology);
        access.callEachWithin("create the lock table " + access.qualifiedTable(), timeout -> access.execute(
                SimpleStatement.newInstance("CREATE TABLE IF NOT EXISTS " + access.qualifiedTable()
                        + " (k text PRIMARY KEY, s blob, d map<text, blob>) WITH comment = 'lockmanager locks: k the"
                        + " storage key, s the lock state (versioned), d data kept under the lock'"), timeout));
        checkLayout();
        return topology;
    }

    private Topology topology(long timeout) throws Exception {
        Row local = access.execute(SimpleStatement.newInstance("SELECT data_center FROM system.local"), timeout).one();
        String localDc = local == null ? null : local.getString(0);
        Set<String> all = new TreeSet<>();
        if (localDc != null) {
            all.add(localDc);
        }
        for (Row peer : access.execute(SimpleStatement.newInstance("SELECT data_center FROM system.peers"), timeout)
                .currentPage()) {
            if (peer.getString(0) != null) {
                all.add(peer.getString(0));
            }
        }
        return new Topology(localDc, all);
    }

    private Map<String, String> replication(long timeout) throws Exception {
        Row row = access.execute(SimpleStatement.newInstance(
                "SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?", access.keyspace()), timeout)
                .one();
        return row == null ? null : new TreeMap<>(row.getMap(0, String.class, String.class));
    }

    /** The rule in this class's comment; refuses what cannot serve a level. */
    void checkReplication(Map<String, String> replication, Topology topology) throws LockManagerException {
        String strategy = replication.getOrDefault("class", "");
        String keyspace = "keyspace '" + access.keyspace() + "' (" + replication + ")";
        int localReplicas;
        if (strategy.endsWith("NetworkTopologyStrategy")) {
            String local = topology.localDataCentre();
            localReplicas = local == null ? 0 : parse(replication.get(local));
            if (localReplicas < 1) {
                throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, keyspace + " keeps no replica in the"
                        + " local data centre '" + local + "': DC-level locks are decided by LOCAL_SERIAL among the local"
                        + " replicas; add '" + local + "' to the keyspace's replication");
            }
        } else if (topology.multiDataCentre()) {
            throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, keyspace + " uses " + strategy
                    + " on a cluster of data centres " + topology.dataCentres() + ": it places replicas without regard"
                    + " to data centres, so DC-level locks (LOCAL_SERIAL) would not be decided by a quorum of anything;"
                    + " use NetworkTopologyStrategy");
        } else {
            localReplicas = parse(replication.get("replication_factor"));
        }
        if (localReplicas < 3) {
            log.warn("The lock store's {} keeps {} replica(s) of each lock in data centre '{}': a quorum of them does"
                    + " not outlive the loss of one, and locks wait until it is back; 3 or more outlive one",
                    keyspace, localReplicas, topology.localDataCentre());
        }
    }

    private static int parse(String factor) {
        if (factor == null) {
            return 0;
        }
        try {
            return Integer.parseInt(factor.trim());
        } catch (NumberFormatException e) {
            // a transient replication factor ("3/1") counts its full replicas
            int slash = factor.indexOf('/');
            return slash > 0 ? parse(factor.substring(0, slash)) : 0;
        }
    }

    private void checkLayout() throws LockManagerException {
        Map<String, String> columns = access.callEachWithin("read the layout of " + access.qualifiedTable(),
                timeout -> {
                    Map<String, String> found = new TreeMap<>();
                    AsyncResultSet rows = access.execute(SimpleStatement.newInstance("SELECT column_name, kind, type"
                            + " FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?",
                            access.keyspace(), access.table()), timeout);
                    for (Row row : rows.currentPage()) {
                        found.put(row.getString(0), row.getString(1) + " " + row.getString(2));
                    }
                    return found;
                });
        Map<String, String> wanted = new LinkedHashMap<>();
        wanted.put("k", "partition_key text");
        wanted.put("s", "regular blob");
        wanted.put("d", "regular map<text, blob>");
        for (Map.Entry<String, String> column : wanted.entrySet()) {
            if (!column.getValue().equals(columns.get(column.getKey()))) {
                throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "table " + access.qualifiedTable()
                        + " exists with a layout the lock store cannot use: column '" + column.getKey() + "' is "
                        + (columns.containsKey(column.getKey()) ? columns.get(column.getKey()) : "missing") + ", not "
                        + column.getValue() + " (its columns: " + columns + "); drop it or name another table");
            }
        }
    }

    /** A CQL identifier, quoted so that its case is kept. */
    static String quoted(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }
}
