package io.github.lockmanager.bench;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.store.jdbc.GuardedTransaction;
import io.github.lockmanager.store.jdbc.JdbcLockStore;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;

/**
 * Figure 13: the same unit of work (one {@code UPDATE} in a transaction, under a lock) guarded by the lock's row and
 * not. Unguarded: lock, the transaction, unlock (4 round trips). Guarded with {@link GuardedTransaction#commit()}: the
 * guard and the lease check add one each (6); with {@link GuardedTransaction#commitAndRelease()} the release is a
 * statement of the transaction (5).
 */
final class GuardedWorkBench {
    private static final String DATA = "bench_guarded_data";

    private final JdbcSubject subject;
    private final Settings settings;
    private final Report report;

    private GuardedWorkBench(JdbcSubject subject, Settings settings, Report report) {
        this.subject = subject;
        this.settings = settings;
        this.report = report;
    }

    static void run(JdbcSubject subject, Settings settings, Report report) throws Exception {
        new GuardedWorkBench(subject, settings, report).measure();
    }

    private void measure() throws Exception {
        DataSource pool = subject.pool();
        JdbcLockStore store = (JdbcLockStore) subject.store();
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + DATA);
            s.execute("CREATE TABLE " + DATA + " (id VARCHAR(16) PRIMARY KEY, val BIGINT NOT NULL)");
            s.execute("INSERT INTO " + DATA + " (id, val) VALUES ('work', 0)");
        }
        try (LockManager manager = LockManagerBuilder.newBuilder().store(store).clientId("bench-guarded")
                .nodeId("guarded").lease(Duration.ofMinutes(10)).shutdownTimeout(Duration.ofSeconds(1)).build()) {
            Rounds.Cycle unguarded = () -> {
                try (LockResource held = manager.lock("work"); Connection c = pool.getConnection()) {
                    c.setAutoCommit(false);
                    update(c);
                    c.commit();
                    c.setAutoCommit(true);
                }
            };
            Rounds.Cycle guardedCommit = guarded(manager, store, pool, GuardedTransaction::commit);
            Rounds.Cycle guardedRelease = guarded(manager, store, pool, GuardedTransaction::commitAndRelease);
            long[] nanos = Rounds.alternate(settings, unguarded, guardedCommit, guardedRelease);
            double per = Rounds.measured(settings);
            report.add("13. guarded transaction, commit", subject.name(), Report.micros(nanos[1] / per),
                    Report.micros(nanos[0] / per), (double) nanos[1] / nanos[0], "lock, guard (SELECT … FOR UPDATE), "
                            + "one UPDATE, lease check + commit, unlock: 6 round trips; baseline: the same lock, UPDATE "
                            + "and commit unguarded, 4");
            report.add("13. guarded transaction, commitAndRelease", subject.name(), Report.micros(nanos[2] / per),
                    Report.micros(nanos[0] / per), (double) nanos[2] / nanos[0], "lock, guard, one UPDATE, release "
                            + "in the transaction + commit: 5 round trips; baseline as above, 4");
        }
    }

    @FunctionalInterface
    private interface Ending {
        void end(GuardedTransaction tx) throws Exception;
    }

    /** Lock, guard, the work, then {@code ending}. */
    private static Rounds.Cycle guarded(LockManager manager, JdbcLockStore store, DataSource pool, Ending ending) {
        return () -> {
            try (LockResource held = manager.lock("work"); Connection c = pool.getConnection()) {
                c.setAutoCommit(false);
                try (GuardedTransaction tx = store.guard(c, held)) {
                    update(c);
                    ending.end(tx);
                }
                c.setAutoCommit(true);
            }
        };
    }

    private static void update(Connection c) throws Exception {
        try (PreparedStatement update = c.prepareStatement("UPDATE " + DATA + " SET val = val + 1 WHERE id = 'work'")) {
            update.executeUpdate();
        }
    }
}
