package io.github.lockmanager.it.cluster;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A node that reaches its store's server through a proxy the test controls: the server unreachable, an answer lost
 * (with its connection, where the client sends the call again on a new one), a partition. A subclass names the store.
 */
abstract class ProxiedOutageContract {
    private static final Duration LEASE = Duration.ofSeconds(3);

    private TcpProxy proxy;
    private LockStore throughProxy;
    private LockManager behindProxy;
    private LockManager direct;
    private LockStore directStore;
    private String client;

    /** The store's name in what the tests print. */
    abstract String name();

    /** The port of the server the proxy forwards to. */
    abstract int serverPort();

    /** An initialized store on a client of its own that reaches the server at 127.0.0.1:{@code port}. */
    abstract LockStore storeThrough(int port) throws Exception;

    /** Closes what {@link #storeThrough} opened that its store does not close. */
    void closeThrough() throws Exception {
    }

    /** The same store, reached directly. */
    abstract Stores.Target direct();

    @BeforeEach
    void start() throws Exception {
        client = "outage-" + UUID.randomUUID().toString().substring(0, 8);
        proxy = new TcpProxy(serverPort());
        throughProxy = storeThrough(proxy.port());
        behindProxy = LockManagerBuilder.newBuilder()
                .store(throughProxy)
                .clientId(client).nodeId("behind-proxy").lease(LEASE).renewalInterval(Duration.ofMillis(500))
                .abortPollInterval(Duration.ofMillis(250)).build();
        directStore = direct().store();
        direct = LockManagerBuilder.newBuilder().store(directStore).clientId(client).nodeId("direct").lease(LEASE)
                .renewalInterval(Duration.ofSeconds(1)).build();
    }

    @AfterEach
    void stop() throws Exception {
        if (proxy == null) {
            return;
        }
        proxy.restore();
        // a start that failed part way leaves the rest unset
        for (AutoCloseable part : new AutoCloseable[]{behindProxy, direct, throughProxy, this::closeThrough, proxy}) {
            if (part != null) {
                part.close();
            }
        }
    }

    private LockKey key(String name) {
        return LockKey.dc("default", client, name);
    }

    @Test
    void holdersAreToldBeforeTheLeaseEndsAndTheManagerRecoversWhenTheServerIsBack() throws Exception {
        AtomicLong toldAt = new AtomicLong();
        AtomicReference<LockResource> held = new AtomicReference<>();
        CountDownLatch taken = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            try (LockResource lock = behindProxy.lock("k")) {
                held.set(lock);
                taken.countDown();
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                toldAt.set(System.currentTimeMillis());
            } catch (Exception e) {
                taken.countDown();
            }
        }, "holder-behind-proxy");
        holder.start();
        taken.await();

        proxy.cut();
        Instant leaseEnd = directStore.read(key("k")).orElseThrow().expirationTime();

        await().atMost(Duration.ofSeconds(15)).until(() -> toldAt.get() != 0);
        LockResource other = null;
        while (other == null) {
            try {
                other = direct.lock("k");
            } catch (AlreadyLockedException e) {
                Thread.sleep(20);
            }
        }
        LockRecord now = directStore.read(key("k")).orElseThrow();
        System.out.printf(name() + " unreachable: holder told %d ms before its lease ended; the key was taken again "
                + "%d ms after it ended%n", leaseEnd.toEpochMilli() - toldAt.get(),
                Duration.between(leaseEnd, now.lockTime()).toMillis());
        assertThat(held.get().isLost()).isTrue();
        assertThat(toldAt.get()).as("told before the lease ended").isLessThan(leaseEnd.toEpochMilli());
        assertThat(now.lockTime()).as("taken again only after the lease ended").isAfterOrEqualTo(leaseEnd);
        assertThat(now.fencingToken()).isGreaterThan(held.get().getFencingToken());

        proxy.restore();
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
            try (LockResource again = behindProxy.lock("k2")) {
                return again.isNewLock();
            }
        });
        assertThat(directStore.read(key("k"))).as("the other node's lock was not touched")
                .get().extracting(LockRecord::nodeId).isEqualTo("direct");
        other.close();
    }

    @Test
    void anAcquireWhoseAnswerIsLostLeavesNoOrphanAndNoFalseRefusal() throws Exception {
        // the acquire is the first call that names the key
        proxy.swallowAnswerTo(client + "#k");

        LockResource lock = behindProxy.lock("k");

        LockRecord stored = directStore.read(key("k")).orElseThrow();
        System.out.printf(name() + " ambiguous acquire: %d answer swallowed after the write reached the server; the "
                + "call tried again found its own entry, token %d%n", proxy.swallowedAnswers(), lock.getFencingToken());
        assertThat(proxy.swallowedAnswers()).isEqualTo(1);
        assertThat(lock.isNewLock()).isTrue();
        assertThat(stored.nodeId()).isEqualTo("behind-proxy");
        assertThat(stored.fencingToken()).isEqualTo(lock.getFencingToken());
        lock.close();
        assertThat(directStore.read(key("k"))).as("no orphan after release").isEmpty();
    }

    @Test
    void aPartitionBlocksNoCallForLongerThanTheOperationTimeout() throws Exception {
        ExecutorService calls = Executors.newFixedThreadPool(2);
        try {
            LockResource held = behindProxy.lock("held");
            proxy.partition();
            long start = System.nanoTime();

            Future<?> closing = calls.submit(held::close);
            Future<?> locking = calls.submit(() -> behindProxy.lock("new"));

            // far above the 1 s operation timeout, far below the partition: the calls must not wait for it to heal
            closing.get(15, TimeUnit.SECONDS);
            assertThatThrownBy(() -> locking.get(15, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(LockManagerException.class);
            System.out.printf(name() + " partition: close() and lock() returned within %d ms (operation timeout "
                    + "1000 ms)%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        } finally {
            proxy.restore();
            calls.shutdownNow();
        }
    }

    @Test
    void aWaitEndsByItsDeadlineThoughAPartitionHoldsUpTheStoreCallInside() throws Exception {
        try (LockResource held = direct.lock("job")) {
            proxy.partition();
            long start = System.nanoTime();
            // the store's operation timeout is 1 s: a wait of 200 ms must not last it out
            assertThatThrownBy(() -> behindProxy.waitForLock(LockSpec.of("job"), Duration.ofMillis(200)))
                    .isInstanceOf(LockManagerException.class);
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.printf(name() + " partition: waitForLock(200 ms) returned after %d ms (operation timeout "
                    + "1000 ms)%n", took);
            assertThat(took).isLessThan(800);
            assertThat(held.isLost()).isFalse();
        } finally {
            proxy.restore();
        }
    }
}
