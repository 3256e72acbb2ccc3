package io.github.lockmanager.bench;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlIdentifier;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DriverExecutionProfile;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.metadata.Node;
import com.datastax.oss.driver.api.core.session.Request;
import com.datastax.oss.driver.api.core.tracker.RequestTracker;
import io.github.lockmanager.store.cassandra.CassandraCluster;
import io.github.lockmanager.store.cassandra.CassandraLockStore;
import io.github.lockmanager.store.cassandra.CassandraNode;
import net.javacrumbs.shedlock.provider.cassandra.CassandraLockProvider;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Figure 19's sides on one Cassandra node ({@link CassandraCluster}): ours, ShedLock's {@code CassandraLockProvider},
 * and Astyanax's {@code ColumnPrefixDistributedRowLock} protocol replayed on the same driver. Each node of each side has
 * a session of its own whose requests a tracker counts.
 */
final class CassandraContenders {
    static final String STORE = "Cassandra";
    private static final Duration LEASE = Duration.ofMinutes(1);

    private CassandraContenders() {
    }

    /** Counts every request its session sends (each answered or failed: one round trip to the node). */
    static final class RequestCounter implements RequestTracker {
        private final AtomicLong requests = new AtomicLong();

        @Override
        public void onSuccess(Request request, long latencyNanos, DriverExecutionProfile profile, Node node,
                              String prefix) {
            requests.incrementAndGet();
        }

        @Override
        public void onError(Request request, Throwable error, long latencyNanos, DriverExecutionProfile profile,
                            Node node, String prefix) {
            requests.incrementAndGet();
        }

        long requests() {
            return requests.get();
        }

        @Override
        public void close() {
        }
    }

    /** A session of its own on the benchmark's node and keyspace, its requests counted by {@code counter}. */
    static CqlSession session(RequestCounter counter) {
        CassandraNode node = CassandraCluster.node();
        CassandraCluster.session();
        return CqlSession.builder().addContactPoint(new InetSocketAddress(node.address(), node.nativePort()))
                .withLocalDatacenter(node.dataCentre()).withKeyspace(CassandraCluster.KEYSPACE)
                .addRequestTracker(counter).build();
    }

    /** The tables of the two peers, as their documentation gives them. */
    static void createTables() {
        CqlSession session = CassandraCluster.session();
        session.execute("CREATE TABLE IF NOT EXISTS " + CassandraCluster.KEYSPACE
                + ".shedlock (name text PRIMARY KEY, lockUntil timestamp, lockedAt timestamp, lockedBy text)");
        session.execute("CREATE TABLE IF NOT EXISTS " + CassandraCluster.KEYSPACE
                + ".astyanax_locks (k text, c text, v bigint, PRIMARY KEY (k, c))");
    }

    /** Ours: a lock manager on the Cassandra store, on a session of its own. */
    static final class Ours extends ManagerContender {
        private final RequestCounter counter;
        private final CqlSession session;

        static Ours on(String node, String client) throws Exception {
            RequestCounter counter = new RequestCounter();
            CqlSession session = session(counter);
            CassandraLockStore store = CassandraLockStore.builder(session).table("bench_locks").build();
            store.initialize();
            return new Ours(store, node, client, counter, session);
        }

        private Ours(CassandraLockStore store, String node, String client, RequestCounter counter, CqlSession session)
                throws Exception {
            super(store, node, client);
            this.counter = counter;
            this.session = session;
        }

        @Override
        public long roundTrips() {
            return counter.requests();
        }

        @Override
        public void close() throws Exception {
            super.close();
            session.close();
        }
    }

    /** ShedLock's Cassandra provider with its defaults (QUORUM, SERIAL), on its documented table. */
    static final class ShedLock extends Contenders.ShedLockSide {
        private final RequestCounter counter;
        private final CqlSession session;

        ShedLock() {
            this(new RequestCounter());
        }

        private ShedLock(RequestCounter counter) {
            this(counter, session(counter));
        }

        private ShedLock(RequestCounter counter, CqlSession session) {
            super(new CassandraLockProvider(CassandraLockProvider.Configuration.builder().withCqlSession(session)
                    .withTableName("shedlock").withKeyspace(CqlIdentifier.fromCql(CassandraCluster.KEYSPACE)).build()));
            this.counter = counter;
            this.session = session;
        }

        @Override
        public String name() {
            return "ShedLock CassandraLockProvider";
        }

        @Override
        public long roundTrips() {
            return counter.requests();
        }

        @Override
        public void close() {
            session.close();
        }
    }

    /**
     * Astyanax's row lock ({@code ColumnPrefixDistributedRowLock}) as its protocol goes, on the modern driver with
     * prepared statements: the lock writes a column of its own (a fresh id) with the lease as TTL and its expiry as
     * value at QUORUM, reads the row back at QUORUM, and has it when no other column is live (else it deletes its
     * column and is refused); columns whose expiry passed are deleted as stale; unlock deletes its column.
     */
    static final class Astyanax implements Contender {
        private final RequestCounter counter = new RequestCounter();
        private final CqlSession session = session(counter);
        private final PreparedStatement write = session.prepare("INSERT INTO astyanax_locks (k, c, v) VALUES (?, ?, ?) "
                + "USING TTL ?");
        private final PreparedStatement read = session.prepare("SELECT c, v FROM astyanax_locks WHERE k = ?");
        private final PreparedStatement delete = session.prepare("DELETE FROM astyanax_locks WHERE k = ? AND c = ?");
        private final Map<String, String> held = new ConcurrentHashMap<>();

        @Override
        public String name() {
            return "Astyanax row lock (protocol replayed)";
        }

        @Override
        public boolean tryLock(String key) {
            String column = "_LOCK_" + UUID.randomUUID();
            long now = System.currentTimeMillis();
            session.execute(write.bind(key, column, now + LEASE.toMillis(), (int) LEASE.toSeconds())
                    .setConsistencyLevel(ConsistencyLevel.QUORUM));
            boolean busy = false;
            for (Row row : session.execute(read.bind(key).setConsistencyLevel(ConsistencyLevel.QUORUM))) {
                String other = row.getString(0);
                if (other.equals(column)) {
                    continue;
                }
                if (row.getLong(1) > now) {
                    busy = true;
                } else {
                    remove(key, other);
                }
            }
            if (busy) {
                remove(key, column);
                return false;
            }
            held.put(key, column);
            return true;
        }

        private void remove(String key, String column) {
            session.execute(delete.bind(key, column).setConsistencyLevel(ConsistencyLevel.QUORUM));
        }

        @Override
        public void unlock(String key) {
            remove(key, held.remove(key));
        }

        @Override
        public void lockWaiting(String key, Duration interval) throws Exception {
            // the row lock polls with its retry policy's sleeps
            Contender.pollFor(this, key, interval);
        }

        @Override
        public long roundTrips() {
            return counter.requests();
        }

        @Override
        public void close() {
            session.close();
        }
    }
}
