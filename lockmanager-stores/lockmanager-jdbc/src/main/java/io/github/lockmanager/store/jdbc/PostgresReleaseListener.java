package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.store.support.ReleaseListener;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Wakes a store's waiters when a key they wait for is released on any node, by PostgreSQL's {@code LISTEN/NOTIFY}.
 * A waiter marks the key's row as waited for; a release of a marked row notifies the channel named after the lock
 * table, with the key, in the releasing statement itself, and unmarks it; an unmarked release notifies nobody, so
 * uncontended locks pay nothing for this.
 *
 * <p>One connection of the data source listens, for as long as the store is open, on a daemon thread named
 * {@code lockmanager-jdbc-<table>-listener}, started by the first wait. While it is not listening (the connection
 * broke; it reconnects every second), waits return {@code false} and their callers poll. A notification can be missed
 * only then, and a waiter sleeps no longer than its own timeout in any case.
 */
final class PostgresReleaseListener extends ReleaseListener {
    private static final Logger log = LoggerFactory.getLogger(PostgresReleaseListener.class);
    private static final int POLL_MILLIS = 500;
    private static final long RECONNECT_MILLIS = 1000;

    private final DataSource dataSource;
    private final String channel;
    private Thread thread;
    /** Counted down each time the listener starts listening; replaced when it stops. */
    private volatile CountDownLatch listening = new CountDownLatch(1);
    private volatile boolean closed;

    PostgresReleaseListener(DataSource dataSource, String table) {
        this.dataSource = dataSource;
        this.channel = table;
    }

    /** The channel's name, as a literal for {@code pg_notify}: table names are letters, digits, {@code _} and {@code .}. */
    static String channelLiteral(String table) {
        return "'" + table + "'";
    }

    /** Starts the listener thread if needed and waits until it listens, up to {@code millis}; {@code false} if not. */
    @Override
    protected boolean listening(long millis) throws InterruptedException {
        synchronized (this) {
            if (closed) {
                return false;
            }
            if (thread == null) {
                thread = new Thread(this::run, "lockmanager-jdbc-" + channel + "-listener");
                thread.setDaemon(true);
                thread.start();
            }
        }
        return listening.await(millis, TimeUnit.MILLISECONDS);
    }

    private void run() {
        while (!closed) {
            try (Connection c = dataSource.getConnection()) {
                // LISTEN takes effect when its transaction commits, and notifications arrive between transactions: on
                // a connection that came with auto-commit off, it never listened. Given back as it came, after UNLISTEN
                boolean autoCommit = c.getAutoCommit();
                c.setAutoCommit(true);
                try {
                    listen(c);
                } finally {
                    giveBack(c, autoCommit);
                }
            } catch (SQLException | RuntimeException e) {
                // a failure of any kind must not end the thread: waiters would wait for a listener that never comes
                listening = new CountDownLatch(1);
                waiters().wakeAll();
                if (closed) {
                    return;
                }
                log.warn("Listening for lock releases in table {} failed: {}. Waiters poll meanwhile; listening again "
                        + "in {} ms", channel, e instanceof SQLException sql ? SqlFailures.INSTANCE.describe(sql)
                        : e.toString(), RECONNECT_MILLIS);
                try {
                    Thread.sleep(RECONNECT_MILLIS);
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }

    /** Restores the connection's auto-commit mode; a broken one is the pool's to discard, and its failure is logged. */
    private void giveBack(Connection c, boolean autoCommit) {
        try {
            if (!c.isClosed()) {
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            log.debug("Could not restore the auto-commit mode of the listening connection of table {}: {}", channel,
                    e.toString());
        }
    }

    private void listen(Connection c) throws SQLException {
        try (Statement statement = c.createStatement()) {
            statement.execute("LISTEN \"" + channel + "\"");
        }
        PGConnection notifications = c.unwrap(PGConnection.class);
        listening.countDown();
        log.debug("Listening for lock releases in table {}", channel);
        try {
            while (!closed) {
                PGNotification[] received = notifications.getNotifications(POLL_MILLIS);
                if (received == null) {
                    continue;
                }
                for (PGNotification notification : received) {
                    if (channel.equals(notification.getName())) {
                        waiters().wake(notification.getParameter());
                    }
                }
            }
        } finally {
            // the connection goes back to the pool: whoever has it next must not collect notifications
            try (Statement statement = c.createStatement()) {
                statement.execute("UNLISTEN *");
            } catch (SQLException e) {
                log.debug("Could not stop listening on a connection of table {}: {}", channel, e.toString());
            }
        }
    }

    /** Stops the listener thread and gives its connection back; waiters are woken and poll. */
    void close() {
        Thread running;
        synchronized (this) {
            closed = true;
            running = thread;
        }
        if (running == null) {
            return;
        }
        running.interrupt();
        try {
            running.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        waiters().wakeAll();
    }
}
