package io.github.lockmanager.it.vthreads;

import com.mchange.v2.c3p0.ComboPooledDataSource;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.store.jdbc.JdbcLockStore;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Run by {@link VirtualThreadsTest} in a JVM of Java 21 or later: {@code vt.threads} virtual threads take and
 * release locks on PostgreSQL for {@code vt.seconds}, each on a key of its own and on a few shared hot keys,
 * through the pool named by {@code vt.pool}. Prints {@code DONE <attempts> <acquisitions> <threads that took a
 * lock> <overlaps> <errors> <pool timeouts>}, or {@code STALLED} if the threads do not finish a minute after their
 * time. A call that waited longer than the pool's 30 s for a connection counts as a pool timeout: that is the load
 * of 200 threads on 10 connections, not a failure of the threads.
 */
public final class VirtualThreadNode {
    private VirtualThreadNode() {
    }

    public static void main(String[] args) throws Exception {
        int threads = Integer.getInteger("vt.threads", 200);
        long seconds = Long.getLong("vt.seconds", 5);
        String url = System.getProperty("vt.url");
        try (AutoCloseable pool = (AutoCloseable) pool(System.getProperty("vt.pool"), url);
             LockManager manager = LockManagerBuilder.newBuilder()
                     .store(JdbcLockStore.builder((DataSource) pool).tableName("lockmanager_vthreads").build())
                     .clientId("vthreads-" + ProcessHandle.current().pid()).lease(Duration.ofSeconds(10)).build()) {
            AtomicLong attempts = new AtomicLong();
            AtomicLong acquisitions = new AtomicLong();
            AtomicInteger progressed = new AtomicInteger();
            AtomicInteger errors = new AtomicInteger();
            AtomicInteger poolTimeouts = new AtomicInteger();
            AtomicInteger[] inside = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger(), new AtomicInteger()};
            AtomicInteger overlaps = new AtomicInteger();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            // compiled for Java 17: the virtual-thread executor is looked up at run time
            ExecutorService virtual = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor")
                    .invoke(null);
            for (int t = 0; t < threads; t++) {
                int id = t;
                virtual.submit(() -> {
                    boolean tookOne = false;
                    for (int n = 0; System.nanoTime() < end; n++) {
                        int hot = n % inside.length;
                        attempts.incrementAndGet();
                        try (LockResource own = manager.lock("own-" + id + "-" + n % 8);
                             LockResource shared = manager.lock("hot-" + hot)) {
                            if (inside[hot].incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            acquisitions.incrementAndGet();
                            tookOne = true;
                            inside[hot].decrementAndGet();
                        } catch (AlreadyLockedException e) {
                            // contention on the hot keys is the point
                        } catch (Exception e) {
                            if (waitedForThePool(e)) {
                                poolTimeouts.incrementAndGet();
                            } else if (errors.getAndIncrement() == 0) {
                                e.printStackTrace();
                            }
                        }
                    }
                    if (tookOne) {
                        progressed.incrementAndGet();
                    }
                });
            }
            virtual.shutdown();
            if (!virtual.awaitTermination(seconds + 60, TimeUnit.SECONDS)) {
                System.out.println("STALLED " + attempts.get());
                System.exit(2);
            }
            System.out.println("DONE " + attempts.get() + " " + acquisitions.get() + " " + progressed.get() + " "
                    + overlaps.get() + " " + errors.get() + " " + poolTimeouts.get());
        }
        System.exit(0);
    }

    private static boolean waitedForThePool(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof java.sql.SQLTransientConnectionException || String.valueOf(c.getMessage())
                    .contains("checkout")) {
                return true;
            }
        }
        return false;
    }

    private static Object pool(String name, String url) throws Exception {
        if (name.equals("hikari")) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(url);
            config.setUsername("postgres");
            config.setMaximumPoolSize(10);
            config.setConnectionTimeout(30_000);
            return new HikariDataSource(config);
        }
        ComboPooledDataSource c3p0 = new ComboPooledDataSource();
        c3p0.setJdbcUrl(url);
        c3p0.setUser("postgres");
        c3p0.setPassword("");
        c3p0.setMaxPoolSize(10);
        c3p0.setCheckoutTimeout(30_000);
        return c3p0;
    }
}
