package io.github.lockmanager.it.cluster;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.jdbc.JdbcLockStore;
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

/** A node that reaches PostgreSQL through a proxy the test controls: the store unreachable, and a lost answer. */
class StoreOutageTest {
    private static final String TABLE = "lockmanager_outage";
    private static final Duration LEASE = Duration.ofSeconds(3);

    private TcpProxy proxy;
    private HikariDataSource throughProxy;
    private LockManager behindProxy;
    private LockManager direct;
    private LockStore directStore;
    private String client;

    @BeforeEach
    void start() throws Exception {
        client = "outage-" + UUID.randomUUID().toString().substring(0, 8);
        proxy = new TcpProxy(Stores.POSTGRES_PORT);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/test?connectTimeout=1&socketTimeout=2");
        config.setUsername("postgres");
        config.setMaximumPoolSize(4);
        config.setConnectionTimeout(1_000);
        throughProxy = new HikariDataSource(config);
        behindProxy = LockManagerBuilder.newBuilder()
                .store(JdbcLockStore.builder(throughProxy).tableName(TABLE).operationTimeout(Duration.ofSeconds(1)).build())
                .clientId(client).nodeId("behind-proxy").lease(LEASE).renewalInterval(Duration.ofMillis(500))
                .abortPollInterval(Duration.ofMillis(250)).build();
        directStore = Stores.postgres(TABLE).store();
        direct = LockManagerBuilder.newBuilder().store(directStore).clientId(client).nodeId("direct").lease(LEASE)
                .renewalInterval(Duration.ofSeconds(1)).build();
    }

    @AfterEach
    void stop() throws Exception {
        behindProxy.close();
        direct.close();
        throughProxy.close();
        proxy.close();
    }

    @Test
    void holdersAreToldBeforeTheLeaseEndsAndTheManagerRecoversWhenTheStoreIsBack() throws Exception {
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
        Instant leaseEnd = directStore.read(LockKey.dc("default", client, "k")).orElseThrow().expirationTime();

        await().atMost(Duration.ofSeconds(15)).until(() -> toldAt.get() != 0);
        LockResource other = null;
        while (other == null) {
            try {
                other = direct.lock("k");
            } catch (AlreadyLockedException e) {
                Thread.sleep(20);
            }
        }
        LockRecord now = directStore.read(LockKey.dc("default", client, "k")).orElseThrow();
        System.out.printf("store unreachable: holder told %d ms before its lease ended; the key was taken again "
                        + "%d ms after it ended%n", leaseEnd.toEpochMilli() - toldAt.get(),
                Duration.between(leaseEnd, now.lockTime()).toMillis());
        assertThat(held.get().isLost()).isTrue();
        assertThat(toldAt.get()).as("told before the lease ended").isLessThan(leaseEnd.toEpochMilli());
        assertThat(now.lockTime()).as("taken again only after the lease ended").isAfterOrEqualTo(leaseEnd);

        proxy.restore();
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
            try (LockResource again = behindProxy.lock("k2")) {
                return again.isNewLock();
            }
        });
        assertThat(directStore.read(LockKey.dc("default", client, "k"))).as("the other node's lock was not touched")
                .get().extracting(LockRecord::nodeId).isEqualTo("direct");
        other.close();
    }

    @Test
    void anAcquireWhoseAnswerIsLostLeavesNoOrphanAndNoFalseRefusal() throws Exception {
        proxy.swallowAnswerTo("INSERT INTO " + TABLE);

        LockResource lock = behindProxy.lock("k");

        LockRecord stored = directStore.read(LockKey.dc("default", client, "k")).orElseThrow();
        System.out.printf("ambiguous acquire: %d answer swallowed after the insert reached PostgreSQL; the retry "
                + "found its own row, token %d%n", proxy.swallowedAnswers(), lock.getFencingToken());
        assertThat(proxy.swallowedAnswers()).isEqualTo(1);
        assertThat(lock.isNewLock()).isTrue();
        assertThat(stored.nodeId()).isEqualTo("behind-proxy");
        assertThat(stored.fencingToken()).isEqualTo(lock.getFencingToken());
        lock.close();
        assertThat(directStore.read(LockKey.dc("default", client, "k"))).as("no orphan after release").isEmpty();
    }

    @Test
    void aPartitionBlocksNoCallForLongerThanTheOperationTimeout() throws Exception {
        // no socketTimeout in the URL, as most applications run: only the store's own bound applies
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/test");
        config.setUsername("postgres");
        config.setMaximumPoolSize(2);
        config.setConnectionTimeout(1_000);
        ExecutorService calls = Executors.newFixedThreadPool(2);
        try (HikariDataSource partitionable = new HikariDataSource(config);
             LockManager node = LockManagerBuilder.newBuilder().store(JdbcLockStore.builder(partitionable)
                             .tableName(TABLE).operationTimeout(Duration.ofSeconds(1)).build())
                     .clientId(client).nodeId("partitioned").lease(LEASE).build()) {
            LockResource held = node.lock("held");
            proxy.partition();
            long start = System.nanoTime();

            Future<?> closing = calls.submit(held::close);
            Future<?> locking = calls.submit(() -> node.lock("new"));

            // far above the 1 s operation timeout, far below the partition: the calls must not wait for it to heal
            closing.get(15, TimeUnit.SECONDS);
            assertThatThrownBy(() -> locking.get(15, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(LockManagerException.class);
            System.out.printf("partition: close() and lock() returned within %d ms (operation timeout 1000 ms)%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        } finally {
            proxy.restore();
            calls.shutdownNow();
        }
    }
}
