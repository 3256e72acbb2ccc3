package io.github.lockmanager.bench;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The harness runs end to end at a tiny size (in memory, PostgreSQL, and the peers on PostgreSQL, MariaDB and Redis): every
 * figure yields a row. No time is asserted (the lock modes' figures 10 to 12 run on the stores that support them).
 */
class BenchmarksSmokeTest {
    @Test
    void everyFigureIsMeasured() throws Exception {
        Report report = Benchmarks.run(Settings.smokeRun(), new ArrayList<>());
        new PeerBench(Settings.smokeRun(), report).run();
        List<String> figures = report.rows().stream().map(r -> r.figure().substring(0, 2)).distinct().toList();
        List<String> expected = new ArrayList<>(List.of("1.", "2.", "2b", "3.", "3b", "4.", "5.", "6.", "7.", "8.", "9.",
                "10", "11", "12", "13", "14", "15", "16"));
        boolean cpuTold = CpuMeter.ofThisMachine().isPresent();
        if (cpuTold) {
            expected.add("5b");
        }
        assertThat(figures).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(report.rows()).extracting(Report.Row::store).contains("in-memory", "PostgreSQL", "MariaDB");
        assertThat(report.rows()).filteredOn(r -> !r.figure().startsWith("8."))
                .allSatisfy(r -> assertThat(r.ratio()).isPositive().isFinite());
        assertThat(report.rows()).filteredOn(r -> r.figure().startsWith("8.")).singleElement()
                .satisfies(r -> assertThat(r.ratio()).as("rows left after the purge, per key").isZero());
        // what a cycle allocates, from JMH's GC profiler, beside the time of figures 1 and 2 (JMH)
        assertThat(report.rows()).filteredOn(r -> r.figure().startsWith("1.") || r.figure().endsWith("(JMH)")).hasSize(2)
                .allSatisfy(r -> assertThat(r.note()).containsPattern("heap allocated per cycle: ours \\d+ B, baseline \\d+ B"));
        assertThat(report.rows()).filteredOn(r -> r.figure().equals("2. uncontended lock+unlock")).hasSize(3)
                .allSatisfy(r -> assertThat(r.note()).startsWith("store calls per cycle: 2.00 "));
        // each cycle timed on its own only on the stores with a server, where two clock readings do not distort it;
        // on PostgreSQL, what releases that wait for the flush cost
        assertThat(report.rows()).filteredOn(r -> r.figure().startsWith("2. uncontended lock+unlock, "))
                .extracting(r -> r.figure().substring("2. uncontended lock+unlock, ".length()) + " on " + r.store())
                .containsExactlyInAnyOrder("median on PostgreSQL", "99th percentile on PostgreSQL", "median on MariaDB",
                        "99th percentile on MariaDB", "durableReleases(true) on PostgreSQL");
        // the comparisons that goals are judged by give each of their rounds, so that one round's draw shows as such
        assertThat(report.rows()).filteredOn(r -> r.figure().startsWith("5.")
                        || r.figure().startsWith("9.") && r.figure().endsWith("throughput, 8 threads"))
                .hasSize(9).allSatisfy(r -> assertThat(r.note())
                        .containsPattern(Throughput.GOAL_ROUNDS + " timed rounds read \\d+\\.\\d\\d, \\d+\\.\\d\\d, "));
        // the processor time of figure 5's cycles, split between this JVM and the database server beside it
        assertThat(report.rows()).filteredOn(r -> r.figure().startsWith("5b")).extracting(Report.Row::store)
                .containsExactlyInAnyOrderElementsOf(cpuTold ? List.of("PostgreSQL", "MariaDB") : List.of());
        assertThat(report.rows()).filteredOn(r -> r.figure().startsWith("5b"))
                .allSatisfy(r -> assertThat(r.note()).contains("(below 1 is cheaper): ours this JVM ",
                        "; raw this JVM ", ", the rest of the machine "));
        assertThat(report.rows()).filteredOn(r -> r.figure().startsWith("12.")).hasSize(3)
                .allSatisfy(r -> assertThat(r.note()).contains(": 2.0 store calls per cycle"));
        assertThat(report.table()).contains("| 3. renewal cycle, 50 locks | PostgreSQL |");
        // permits beside exclusive locks of distinct keys on every store measured, Redis included
        assertThat(report.rows()).filteredOn(r -> r.figure().startsWith("15.")).extracting(Report.Row::store)
                .contains("in-memory", "PostgreSQL", "MariaDB", "Redis");
        assertThat(report.rows()).filteredOn(r -> r.figure().startsWith("13")).extracting(Report.Row::store)
                .containsExactlyInAnyOrder("PostgreSQL", "PostgreSQL", "MariaDB", "MariaDB");
        assertThat(report.rows()).filteredOn(r -> r.figure().startsWith("3b")).singleElement()
                .satisfies(r -> assertThat(r.note()).contains("0 locks lost while held"));
        assertThat(report.rows()).filteredOn(r -> r.figure().startsWith("9.")).extracting(Report.Row::figure)
                .anyMatch(f -> f.contains("Spring Integration")).anyMatch(f -> f.contains("ShedLock"))
                .anyMatch(f -> f.contains("Redisson")).anyMatch(f -> f.contains("RFencedLock"))
                .anyMatch(f -> f.contains("RedisLockRegistry")).hasSize(48);
        // the heap a waiting asynchronous acquisition holds, beside Redisson's, every waiter of both sides counted
        assertThat(report.rows()).filteredOn(r -> r.figure().equals("16. heap per task lock waiter, vs Redisson lockAsync"))
                .singleElement().satisfies(r -> {
                    assertThat(r.store()).isEqualTo("Redis");
                    assertThat(r.ratio()).isPositive().isFinite();
                    assertThat(r.note()).contains("1,000 still waiting at the count", "threads added: 0");
                });
        // what a waiter costs its store, on every store and beside every peer
        assertThat(report.rows()).filteredOn(r -> r.figure().endsWith("a waiter's store calls per second")).hasSize(6)
                .allSatisfy(r -> assertThat(r.note()).contains("a waiter on node b"));
        // on Redis, the commands each side sends per cycle, as the server reports them
        assertThat(report.rows()).filteredOn(r -> r.store().equals("Redis") && r.figure().endsWith("uncontended lock+unlock"))
                .hasSize(3).allSatisfy(r -> assertThat(r.note()).contains("commands sent per cycle").containsPattern("ours 2\\.0\\d \\("));
        // ShedLock on MariaDB too, both sides with the driver's default settings
        assertThat(report.rows()).filteredOn(r -> r.figure().startsWith("9. vs ShedLock")).extracting(Report.Row::store)
                .containsOnly("PostgreSQL", "MariaDB").contains("MariaDB");
        // on Redis the same key in every cycle too, its median and 99th percentile beside each peer's
        assertThat(report.rows()).filteredOn(r -> r.figure().startsWith("9.") && r.figure().contains("the same key each cycle"))
                .hasSize(6).allSatisfy(r -> assertThat(r.store()).isEqualTo("Redis"));
        // a new key in every cycle, its median and 99th percentile beside each peer's
        assertThat(report.rows()).filteredOn(r -> r.figure().startsWith("9.") && r.figure().contains("a new key each cycle"))
                .hasSize(12);
        assertThat(report.rows()).filteredOn(r -> r.figure().startsWith("9.") && r.figure().endsWith("throughput, 8 threads"))
                .hasSize(6).allSatisfy(r -> assertThat(r.note().contains("processor time per cycle: ours this JVM "))
                        .isEqualTo(cpuTold));
    }
}
