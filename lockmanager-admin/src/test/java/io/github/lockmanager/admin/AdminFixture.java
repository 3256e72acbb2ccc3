package io.github.lockmanager.admin;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.store.jdbc.DatabaseAccess;
import io.github.lockmanager.store.jdbc.JdbcLockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Nodes of one client on the local PostgreSQL ({@code -Dlockmanager.postgres.url} to use another), each with threads
 * that hold a lock, note when they are interrupted, and give the lock back when the test lets them.
 */
abstract class AdminFixture {
    static JdbcLockStore store;

    final String client = "admin-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<LockManager> managers = new ArrayList<>();
    private final List<Holder> holders = new ArrayList<>();

    @BeforeAll
    static void database() throws Exception {
        store = JdbcLockStore.builder(DatabaseAccess.postgres()).tableName("lockmanager_admin").build();
        store.initialize();
    }

    @AfterEach
    void stopNodes() throws InterruptedException {
        for (Holder holder : holders) {
            holder.release.countDown();
            holder.thread.interrupt();
            holder.thread.join(TimeUnit.SECONDS.toMillis(10));
        }
        managers.forEach(LockManager::close);
    }

    LockManager node(String nodeId) throws Exception {
        LockManager manager = LockManagerBuilder.newBuilder().store(store).clientId(client).nodeId(nodeId)
                .abortPollInterval(Duration.ofMillis(100)).shutdownTimeout(Duration.ofSeconds(1)).build();
        managers.add(manager);
        return manager;
    }

    LockAdmin.Builder admin() {
        return LockAdmin.builder(store).clientId(client).snapshotTtl(Duration.ZERO);
    }

    /**
     * A thread of {@code manager} that holds {@code key} until the test ends: when interrupted (an abort) it notes it
     * and keeps the lock, as a holder busy finishing its work would, so the lock shows its ABORT status meanwhile.
     */
    Holder hold(LockManager manager, String key) throws Exception {
        return hold(() -> manager.lock(key));
    }

    /** As {@link #hold(LockManager, String)}, for a lock that {@code taking} takes. */
    Holder hold(Taking taking) throws Exception {
        Holder holder = new Holder();
        CompletableFuture<LockResource> taken = new CompletableFuture<>();
        holder.thread = new Thread(() -> {
            try (LockResource lock = taking.take()) {
                holder.lock = lock;
                taken.complete(lock);
                try {
                    holder.release.await();
                } catch (InterruptedException e) {
                    holder.interrupted.complete(null);
                    awaitUninterruptibly(holder.release);
                }
            } catch (Exception e) {
                taken.completeExceptionally(e);
            }
        }, "holder-" + holders.size());
        holders.add(holder);
        holder.thread.start();
        taken.get(10, TimeUnit.SECONDS);
        return holder;
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (latch.getCount() > 0) {
            try {
                latch.await();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** How a holder thread takes its lock. */
    @FunctionalInterface
    interface Taking {
        LockResource take() throws Exception;
    }

    static final class Holder {
        final CompletableFuture<Void> interrupted = new CompletableFuture<>();
        final CountDownLatch release = new CountDownLatch(1);
        volatile LockResource lock;
        Thread thread;
    }
}
