package io.github.lockmanager.demo;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.Lock;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.TaskLock;
import io.github.lockmanager.TaskOptions;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.memory.InMemoryLockStore;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Several simulated nodes share one in-memory store and contend for a few keys: re-entry, refusal, waiting,
 * abort across nodes, permits (at most n holders), a lock owned by a task rather than a thread, and a crashed node's
 * lock freed after its (short) lease. Ends by itself.
 */
public final class LockManagerDemo {
    private static final Duration LEASE = Duration.ofSeconds(3);

    private LockManagerDemo() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.setProperty("org.slf4j.simpleLogger.showThreadName", "true");
        Thread.currentThread().setName("demo-main");
        InMemoryLockStore store = new InMemoryLockStore();
        SeverableStore crashingView = new SeverableStore(store);
        try (LockManager alpha = node(store, "node-alpha");
             LockManager beta = node(store, "node-beta");
             LockManager gamma = node(crashingView, "node-gamma")) {
            reentry(alpha, beta);
            waiting(alpha, beta);
            abort(alpha, beta);
            permits(alpha, beta);
            taskLock(alpha, beta);
            crash(alpha, gamma, crashingView);
            say("All nodes close now: they release what they hold and stop their threads.");
        }
        store.close();
        say("Demo finished.");
    }

    private static LockManager node(LockStore store, String nodeId) throws LockException {
        return LockManagerBuilder.newBuilder().store(store).clientId("demo").nodeId(nodeId).lease(LEASE)
                .renewalInterval(Duration.ofSeconds(1)).abortPollInterval(Duration.ofMillis(250)).build();
    }

    private static void reentry(LockManager alpha, LockManager beta) throws Exception {
        section("1. Re-entry and refusal");
        try (LockResource first = alpha.lock("order-123");
             LockResource again = alpha.lock("order-123")) {
            say("node-alpha took 'order-123': new lock=%s, fencing token %d", first.isNewLock(), first.getFencingToken());
            say("node-alpha took it again on the same thread: new lock=%s, same token %d (no store call)",
                    again.isNewLock(), again.getFencingToken());
            try {
                beta.lock("order-123");
            } catch (AlreadyLockedException e) {
                say("node-beta is refused at once: %s", e.getMessage());
            }
            printLocks(beta);
        }
        say("node-alpha closed both holds; 'order-123' locked anywhere: %s", beta.isLocked("order-123"));
    }

    private static void waiting(LockManager alpha, LockManager beta) throws Exception {
        section("2. waitForLock: a waiter on another node takes over when the holder lets go");
        CountDownLatch held = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            try (LockResource ignored = alpha.lock("invoice-7")) {
                held.countDown();
                TimeUnit.MILLISECONDS.sleep(700);
            } catch (Exception e) {
                say("holder failed: %s", e);
            }
        }, "alpha-invoicer");
        holder.start();
        held.await();
        long start = System.nanoTime();
        try (LockResource lock = beta.waitForLock(LockSpec.of("invoice-7"), Duration.ofSeconds(5))) {
            say("node-beta waited %d ms for 'invoice-7' and holds it now, fencing token %d (higher than node-alpha's)",
                    millisSince(start), lock.getFencingToken());
        }
        holder.join();
    }

    private static void abort(LockManager alpha, LockManager beta) throws Exception {
        section("3. Abort: node-alpha stops a job that holds a lock on node-beta");
        CountDownLatch started = new CountDownLatch(1);
        long[] abortedAt = new long[1];
        Thread job = new Thread(() -> {
            try (LockResource ignored = beta.lock("nightly-report")) {
                started.countDown();
                TimeUnit.SECONDS.sleep(30);
                say("the job ran to its end (the abort did not arrive)");
            } catch (InterruptedException e) {
                abortedAt[0] = System.nanoTime();
                say("node-beta's job was interrupted and stops; its lock is released by try-with-resources");
            } catch (LockException e) {
                say("job could not lock: %s", e);
            }
        }, "beta-report-job");
        job.start();
        started.await();
        printLocks(alpha);
        long start = System.nanoTime();
        alpha.abort("nightly-report");
        say("node-alpha asked for the abort; the lock shows as:");
        printLocks(alpha);
        job.join();
        say("the holder on node-beta heard of it %d ms after the request (abort poll interval 250 ms)",
                TimeUnit.NANOSECONDS.toMillis(abortedAt[0] - start));
    }

    private static void permits(LockManager alpha, LockManager beta) throws Exception {
        section("4. Permits: at most 2 holders of 'partner-api' across the nodes");
        try (LockResource first = alpha.lock(LockSpec.permits("partner-api", 2));
             LockResource second = beta.lock(LockSpec.permits("partner-api", 2))) {
            say("node-alpha and node-beta each hold a permit, tokens %d and %d", first.getFencingToken(),
                    second.getFencingToken());
            CompletableFuture<String> third = CompletableFuture.supplyAsync(() -> {
                try (LockResource ignored = beta.lock(LockSpec.permits("partner-api", 2))) {
                    return "a third holder got in";
                } catch (AlreadyLockedException e) {
                    return "a third holder is refused: " + e.getMessage();
                } catch (LockException e) {
                    return "failed: " + e;
                }
            }, runnable -> new Thread(runnable, "beta-third-caller").start());
            say("%s", third.get(10, TimeUnit.SECONDS));
            printLocks(alpha);
        }
    }

    private static void taskLock(LockManager alpha, LockManager beta) throws Exception {
        section("5. A task lock: taken by one thread, its wait holds no thread, released by another thread");
        CompletableFuture<TaskLock> export = alpha.lockForTaskAsync(LockSpec.of("export-42"), Duration.ofSeconds(5),
                TaskOptions.named("export-42")).toCompletableFuture();
        TaskLock lock = export.get(10, TimeUnit.SECONDS);
        say("node-alpha's task holds 'export-42' as %s, token %d", lock.getLock().getHolderThreadName(),
                lock.getFencingToken());
        CompletableFuture<TaskLock> waiting = beta.lockForTaskAsync(LockSpec.of("export-42"), Duration.ofSeconds(5),
                TaskOptions.named("export-again")).toCompletableFuture();
        say("node-beta's task waits for it without a thread (done: %s)", waiting.isDone());
        Thread finisher = new Thread(lock::close, "alpha-finisher");
        finisher.start();
        finisher.join();
        try (TaskLock next = waiting.get(10, TimeUnit.SECONDS)) {
            say("another thread released it; node-beta's task took it, token %d", next.getFencingToken());
        }
    }

    private static void crash(LockManager alpha, LockManager gamma, SeverableStore gammaStore) throws Exception {
        section("6. A crashed node's lock is free again one lease (" + LEASE.toSeconds() + " s) later");
        CountDownLatch held = new CountDownLatch(1);
        LockResource[] migration = new LockResource[1];
        Thread migrator = new Thread(() -> {
            try (LockResource lock = gamma.lock("schema-migration")) {
                migration[0] = lock;
                held.countDown();
                TimeUnit.SECONDS.sleep(30);
            } catch (InterruptedException e) {
                say("node-gamma's migrator was interrupted: its lock is lost=%s, so it stops working",
                        migration[0].isLost());
            } catch (LockException e) {
                say("migrator could not lock: %s", e);
            }
        }, "gamma-migrator");
        migrator.start();
        held.await();
        say("node-gamma holds 'schema-migration' with token %d", migration[0].getFencingToken());
        gammaStore.sever();
        long crashed = System.nanoTime();
        say("node-gamma crashes (it can no longer reach the store, so it stops renewing)");
        try {
            alpha.lock("schema-migration");
        } catch (AlreadyLockedException e) {
            say("node-alpha right after the crash: refused, the lease is still running");
        }
        try (LockResource taken = alpha.waitForLock(LockSpec.of("schema-migration"), Duration.ofSeconds(10))) {
            say("node-alpha took 'schema-migration' %d ms after the crash, fencing token %d > %d",
                    millisSince(crashed), taken.getFencingToken(), migration[0].getFencingToken());
            printLocks(alpha);
        }
        migrator.join();
    }

    private static void printLocks(LockManager manager) throws Exception {
        List<Lock> locks = manager.getLocks();
        say("  %-18s %-5s %-11s %-16s %-6s %-7s %s", "KEY", "LEVEL", "NODE", "THREAD", "TOKEN", "STATUS", "EXPIRES IN");
        for (Lock lock : locks) {
            say("  %-18s %-5s %-11s %-16s %-6d %-7s %d ms", lock.getKey(), lock.getLevel(), lock.getOwnerNodeId(),
                    lock.getHolderThreadName(), lock.getFencingToken(), lock.getStatus(),
                    Duration.between(Instant.now(), lock.getExpirationTime()).toMillis());
        }
        if (locks.isEmpty()) {
            say("  (no locks)");
        }
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    private static void section(String title) {
        System.out.println();
        System.out.println("== " + title);
    }

    private static void say(String format, Object... args) {
        System.out.println(String.format(format, args));
    }
}
