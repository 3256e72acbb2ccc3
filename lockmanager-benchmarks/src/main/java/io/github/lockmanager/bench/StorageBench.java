package io.github.lockmanager.bench;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.store.jdbc.JdbcLockStore;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Figure 8: the rows a table holds after N distinct keys were each locked and released once (locking per entity),
 * before and after the idle rows are purged, against N (what a table keeping one row per key ever locked holds).
 */
final class StorageBench {
    private final DataSource pool;
    private final String table;
    private final Settings settings;
    private final Report report;

    StorageBench(DataSource pool, String table, Settings settings, Report report) {
        this.pool = pool;
        this.table = table;
        this.settings = settings;
        this.report = report;
    }

    void run() throws Exception {
        int keys = settings.storageKeys();
        String client = "bench-storage-" + UUID.randomUUID().toString().substring(0, 8);
        JdbcLockStore store = JdbcLockStore.builder(pool).tableName(table).idleRecordRetention(Duration.ofSeconds(1))
                .build();
        long start = System.nanoTime();
        try (LockManager manager = LockManagerBuilder.newBuilder().store(store).clientId(client).nodeId("storage")
                .purgeInterval(Duration.ZERO).build()) {
            int threads = 8;
            ExecutorService workers = Executors.newFixedThreadPool(threads);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = t;
                done.add(workers.submit(() -> {
                    for (int k = first; k < keys; k += threads) {
                        manager.lock("order-" + k).close();
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            workers.shutdown();
        }
        long lockedIn = System.nanoTime() - start;
        long before = rows(client);
        // the rows are free now; once a second has passed they are idle for longer than the retention
        Thread.sleep(1_500);
        long purgeStart = System.nanoTime();
        int purged = store.purgeIdleRecords();
        long purgeTook = System.nanoTime() - purgeStart;
        long after = rows(client);
        report.add("8. rows after " + keys + " distinct keys", "PostgreSQL", after + " rows (" + before
                        + " before purge)", keys + " rows", (double) after / keys, String.format(Locale.ROOT,
                        "each key locked and released once in %.1f s (8 threads); one purge statement deleted %d idle rows "
                                + "in %s; ratio: rows left after purge / rows kept by one row per key ever locked",
                        lockedIn / 1e9, purged, Report.millis(purgeTook)));
    }

    private long rows(String client) throws SQLException {
        try (Connection c = pool.getConnection();
             PreparedStatement count = c.prepareStatement("SELECT COUNT(*) FROM " + table + " WHERE lock_key LIKE ?")) {
            count.setString(1, "DC#default#" + client + "#%");
            try (ResultSet rs = count.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
