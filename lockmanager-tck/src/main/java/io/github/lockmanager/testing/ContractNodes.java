package io.github.lockmanager.testing;

import io.github.lockmanager.testing.support.InstrumentedStore;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.spi.LockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the manager-level suites share: nodes (managers on one store, each behind its own {@link InstrumentedStore})
 * under a client id of the test's own, so that tests may share one store and table without seeing each other, and
 * holder threads that the cleanup stops.
 */
public abstract class ContractNodes {
    /** Long enough that nothing expires by accident on a loaded machine; tests that need expiry set their own. */
    protected static final Duration LEASE = Duration.ofSeconds(30);
    protected static final Duration ABORT_POLL = Duration.ofMillis(100);

    private final List<LockManager> managers = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    protected String clientId;

    /** The real store every node of a test shares. */
    protected abstract LockStore store();

    @BeforeEach
    void newClient() {
        clientId = "c" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void closeEverything() throws InterruptedException {
        for (Thread t : threads) {
            t.interrupt();
            t.join(10_000);
        }
        managers.forEach(LockManager::close);
    }

    /** A node's builder with the test's client id and quick abort polling; the test may change anything. */
    protected LockManagerBuilder nodeBuilder(String nodeId, InstrumentedStore store) {
        return LockManagerBuilder.newBuilder().store(store).clientId(clientId).farmId("farm1").nodeId(nodeId)
                .lease(LEASE).abortPollInterval(ABORT_POLL).shutdownTimeout(Duration.ofSeconds(5));
    }

    protected LockManager start(LockManagerBuilder builder) throws LockManagerException {
        LockManager manager = builder.build();
        managers.add(manager);
        return manager;
    }

    protected LockManager node(String nodeId) throws LockManagerException {
        return start(nodeBuilder(nodeId, new InstrumentedStore(store())));
    }

    /** Starts a named thread that the test's cleanup interrupts and joins. */
    protected Thread spawn(String name, Runnable body) {
        Thread t = new Thread(body, name);
        threads.add(t);
        t.start();
        return t;
    }

    /** A thread of {@code node} that takes {@code key}, reports it, and holds it until interrupted. */
    protected HeldElsewhere holdInThread(LockManager node, String key) throws InterruptedException {
        return holdInThread(node, key, false);
    }

    /**
     * A thread of {@code node} that takes {@code key} and holds it until interrupted, or, if {@code stubborn},
     * until {@link HeldElsewhere#letGo} is counted down, noting interrupts but holding on.
     */
    protected HeldElsewhere holdInThread(LockManager node, String key, boolean stubborn) throws InterruptedException {
        return holdInThread("holder-" + key, () -> node.lock(key), stubborn);
    }

    /** How a holder thread takes its lock. */
    @FunctionalInterface
    protected interface Taking {
        LockResource take() throws Exception;
    }

    /** A thread named {@code name} that takes a lock by {@code taking}, then holds it as {@link #holdInThread} does. */
    protected HeldElsewhere holdInThread(String name, Taking taking, boolean stubborn) throws InterruptedException {
        HeldElsewhere held = new HeldElsewhere();
        held.thread = spawn(name, () -> {
            try (LockResource lock = taking.take()) {
                held.resource = lock;
                held.acquired.countDown();
                while (true) {
                    try {
                        held.letGo.await();
                        return;
                    } catch (InterruptedException e) {
                        held.interrupted.set(true);
                        if (!stubborn) {
                            return;
                        }
                    }
                }
            } catch (Exception e) {
                held.failure.set(e);
                held.acquired.countDown();
            }
        });
        assertThat(held.acquired.await(30, TimeUnit.SECONDS)).as("holder thread took the lock").isTrue();
        assertThat(held.failure.get()).as("holder thread failure").isNull();
        return held;
    }

    /**
     * A thread of {@code node} that waits for {@code key}, held by another thread of the node
     * ({@link LockManager#waitForLock(LockSpec, Duration)}), then holds it until {@link HeldElsewhere#letGo}; returns
     * once the thread waits.
     */
    protected HeldElsewhere waitInThread(LockManager node, String key, String name) {
        HeldElsewhere held = new HeldElsewhere();
        held.thread = spawn(name, () -> {
            try (LockResource lock = node.waitForLock(LockSpec.of(key), Duration.ofSeconds(60))) {
                held.resource = lock;
                held.acquired.countDown();
                held.letGo.await();
            } catch (Exception e) {
                held.failure.set(e);
                held.acquired.countDown();
            }
        });
        awaitWaiting(held.thread);
        return held;
    }

    /** Until {@code thread} waits for the holder of its node (a refusal here makes no store call, so only that). */
    protected static void awaitWaiting(Thread thread) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5))
                .until(() -> thread.getState() == Thread.State.TIMED_WAITING);
    }

    protected static final class HeldElsewhere {
        public volatile LockResource resource;
        public volatile Thread thread;
        public final CountDownLatch acquired = new CountDownLatch(1);
        public final CountDownLatch letGo = new CountDownLatch(1);
        public final AtomicBoolean interrupted = new AtomicBoolean();
        public final AtomicReference<Exception> failure = new AtomicReference<>();

        public HeldElsewhere() {
        }
    }

    /** Whether the store announces releases of {@code key}, held now: it watches for one. */
    /** Whether the store tells whose request was withdrawn from the line {@code requests} ({@code watchWithdrawals}). */
    protected boolean tellsWhoseWithdrawal(io.github.lockmanager.spi.LockKey requests) throws Exception {
        Runnable unwatch = store().watchWithdrawals(requests, ownerToken -> { });
        if (unwatch != null) {
            unwatch.run();
        }
        return unwatch != null;
    }

    protected boolean announcesReleases(io.github.lockmanager.spi.LockKey key) throws Exception {
        Runnable unwatch = store().watchRelease(key, () -> { });
        if (unwatch != null) {
            unwatch.run();
        }
        return unwatch != null;
    }
}
