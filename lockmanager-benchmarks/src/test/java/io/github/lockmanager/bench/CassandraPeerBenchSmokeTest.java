package io.github.lockmanager.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Figure 19 end to end at a tiny size on a Cassandra node of its own: every comparison yields its rows, and the round
 * trips of an uncontended lock+unlock, which do not move from run to run, are what the store promises: 2 requests
 * for ours against 3 for ShedLock's provider (a read, then a transaction each for lock and unlock) and 3 for
 * Astyanax's row lock (a write, a read back, a delete).
 */
class CassandraPeerBenchSmokeTest {
    @Test
    void everyComparisonIsMeasuredAndOursSendsFewerRequests() throws Exception {
        Report report = new Report();
        new CassandraPeerBench(Settings.smokeRun(), report).run();
        List<Report.Row> rows = report.rows();
        assertThat(rows).allSatisfy(r -> assertThat(r.figure()).startsWith("19. vs "))
                .allSatisfy(r -> assertThat(r.store()).isEqualTo("Cassandra"))
                .allSatisfy(r -> assertThat(r.ratio()).isPositive().isFinite());
        assertThat(rows).extracting(Report.Row::figure).anyMatch(f -> f.contains("ShedLock"))
                .anyMatch(f -> f.contains("Astyanax")).hasSize(2 * 9);
        assertThat(rows).filteredOn(r -> r.figure().endsWith("uncontended lock+unlock")).extracting(Report.Row::note)
                .containsExactly("round trips per cycle (requests counted by each session's request tracker): ours "
                                + "2.00, theirs 3.00",
                        "round trips per cycle (requests counted by each session's request tracker): ours 2.00, "
                                + "theirs 3.00");
        assertThat(rows).filteredOn(r -> r.figure().contains("the same key each cycle")).hasSize(4);
    }
}
