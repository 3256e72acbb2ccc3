package io.github.lockmanager.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The full run of the {@code bench} profile: every figure of {@link Benchmarks}, then figure 9 ({@link PeerBench}),
 * figure 17 ({@link FairnessBench}), figure 18 ({@link FailoverBench}) and figure 19 ({@link CassandraPeerBench}), whose
 * peer libraries are on the test class path only. Writes one table to {@code -Dbench.out}.
 */
public final class AllBenchmarks {
    private AllBenchmarks() {
    }

    public static void main(String[] args) throws Exception {
        Settings settings = Boolean.getBoolean("bench.smoke") ? Settings.smokeRun() : Settings.fullRun();
        List<String> versions = new ArrayList<>();
        Report report = Benchmarks.run(settings, versions);
        new PeerBench(settings, report).run();
        new FairnessBench(settings, report).run();
        new FailoverBench(settings, report).run();
        new CassandraPeerBench(settings, report).run();
        versions.add("peers " + System.getProperty("bench.peers", "as pinned in the parent pom") + " (Redis at "
                + Contenders.REDIS_URL + "; Cassandra " + CassandraPeerBench.serverVersion() + ", one node started by the harness)");
        Benchmarks.write(report, versions, Path.of(System.getProperty("bench.out", "target/benchmarks.md")));
        System.exit(0);
    }
}
