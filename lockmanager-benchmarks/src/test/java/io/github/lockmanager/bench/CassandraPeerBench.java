package io.github.lockmanager.bench;

import io.github.lockmanager.store.cassandra.CassandraCluster;

import java.util.UUID;

/**
 * Figure 19: lockmanager's Cassandra store beside ShedLock's Cassandra provider and Astyanax's row lock protocol
 * replayed on the same driver, on one Cassandra node the benchmark starts ({@code CassandraCluster}, a single replica):
 * every comparison of figure 9 (uncontended lock+unlock with its requests counted, a new key each cycle, 8 threads,
 * the hand-off, a waiter's calls, one hot key on 2 nodes), and the same key's cycle timed on its own (median and 99th
 * percentile). Ours takes DC-level keys (LOCAL_SERIAL, LOCAL_QUORUM), ShedLock its defaults (SERIAL, QUORUM): on one
 * data centre they cost the same.
 */
final class CassandraPeerBench {
    private final PeerBench peers;
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    CassandraPeerBench(Settings settings, Report report) {
        this.peers = new PeerBench(settings, report);
    }

    /** The release of the benchmark's Cassandra node, as it tells it. */
    static String serverVersion() {
        return CassandraCluster.session().execute("SELECT release_version FROM system.local").one().getString(0);
    }

    /** Figure 19 alone, at the full run's size, its table written to {@code -Dbench.out} (default target/figure19.md). */
    public static void main(String[] args) throws Exception {
        Settings settings = Boolean.getBoolean("bench.smoke") ? Settings.smokeRun() : Settings.fullRun();
        Report report = new Report();
        new CassandraPeerBench(settings, report).run();
        java.nio.file.Files.writeString(java.nio.file.Path.of(System.getProperty("bench.out", "target/figure19.md")),
                "Cassandra " + serverVersion() + "\n\n" + report.table());
        System.exit(0);
    }

    void run() throws Exception {
        CassandraContenders.createTables();
        PeerBench.Factory ours = node -> CassandraContenders.Ours.on(node, "bench-cassandra-" + run);
        peers.compare("19.", ours, node -> new CassandraContenders.ShedLock(), CassandraContenders.STORE);
        peers.compare("19.", ours, node -> new CassandraContenders.Astyanax(), CassandraContenders.STORE);
    }
}
