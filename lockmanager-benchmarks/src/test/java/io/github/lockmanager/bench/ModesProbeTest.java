package io.github.lockmanager.bench;

import org.junit.jupiter.api.Test;

import java.time.Duration;

class ModesProbeTest {
    @Test
    void probe() throws Exception {
        Settings s = new Settings(false, 500, 50, 100, 200, 200, 2_000, 2, Duration.ofSeconds(3), true, 200, 400,
                Duration.ofSeconds(6));
        Report report = new Report();
        try (HBaseSubject hbase = new HBaseSubject()) {
            new StoreBench(hbase, s, report).run();
        }
        try (JdbcSubject pg = JdbcSubject.postgres()) {
            new StoreBench(pg, s, report).run();
        }
        try (InMemorySubject mem = new InMemorySubject()) {
            new StoreBench(mem, s, report).run();
        }
        System.out.println(report.table());
    }
}
