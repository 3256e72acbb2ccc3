package io.github.lockmanager.engine;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.memory.InMemoryLockStore;
import io.github.lockmanager.store.support.ForwardingLockStore;
import io.github.lockmanager.testing.support.ManualTimeSource;
import org.junit.jupiter.api.Test;

import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LockManagerMXBeanTest {
    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    @Test
    void theAdminViewShowsWhatTheNodeHoldsForHowLongAndCanAbort() throws Exception {
        ManualTimeSource time = new ManualTimeSource();
        ObjectName name = AdminBean.name("billing", "jmx-node");
        LockManager manager = LockManagerBuilder.newBuilder().store(new InMemoryLockStore(time)).timeSource(time)
                .clientId("billing").nodeId("jmx-node").lease(Duration.ofMinutes(10)).registerMBean(true).build();
        try {
            manager.lock("report");
            manager.lock("report");
            time.advance(Duration.ofSeconds(90));

            assertThat(server.getAttribute(name, "HeldLockCount")).isEqualTo(1);
            CompositeData[] rows = (CompositeData[]) server.getAttribute(name, "HeldLocks");
            assertThat(rows).hasSize(1);
            assertThat(rows[0].get("level")).isEqualTo("DC");
            assertThat(rows[0].get("key")).isEqualTo("report");
            assertThat(rows[0].get("holderThread")).isEqualTo(Thread.currentThread().getName());
            assertThat(rows[0].get("holds")).isEqualTo(2);
            assertThat(rows[0].get("heldForMillis")).isEqualTo(90_000L);
            assertThat(rows[0].get("fencingToken")).isEqualTo(1L);
            assertThat(rows[0].get("mode")).isEqualTo("EXCLUSIVE");

            LockManagerMXBean proxy = JMX.newMXBeanProxy(server, name, LockManagerMXBean.class);
            assertThat(proxy.getHeldLocks()).singleElement().satisfies(row -> {
                assertThat(row.getKey()).isEqualTo("report");
                assertThat(row.getHeldForMillis()).isEqualTo(90_000L);
            });

            AtomicBoolean interrupted = new AtomicBoolean();
            CountDownLatch held = new CountDownLatch(1);
            Thread job = new Thread(() -> {
                try {
                    manager.lock("job");
                    held.countDown();
                    new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                    interrupted.set(true);
                } catch (Exception e) {
                    held.countDown();
                }
            }, "job");
            job.start();
            held.await();
            server.invoke(name, "abort", new Object[]{"job"}, new String[]{String.class.getName()});
            job.join(TimeUnit.SECONDS.toMillis(10));
            assertThat(interrupted).isTrue();
        } finally {
            manager.close();
        }
        assertThat(server.isRegistered(name)).as("unregistered on close").isFalse();
    }

    @Test
    void codeReachesTheSameViewWithoutJmx() throws Exception {
        ManualTimeSource time = new ManualTimeSource();
        try (LockManager manager = LockManagerBuilder.newBuilder().store(new InMemoryLockStore(time)).timeSource(time)
                .clientId("billing").nodeId("code-node").build()) {
            LockManagerMXBean admin = LockManagerBuilder.admin(manager);
            assertThat(admin.getHeldLocks()).isEmpty();
            manager.lock("invoice");
            time.advance(Duration.ofMillis(1500));
            assertThat(admin.getHeldLockCount()).isEqualTo(1);
            assertThat(admin.getHeldLocks()).singleElement().satisfies(row -> {
                assertThat(row.getLevel()).isEqualTo("DC");
                assertThat(row.getKey()).isEqualTo("invoice");
                assertThat(row.getHolds()).isEqualTo(1);
                assertThat(row.getHeldForMillis()).isEqualTo(1500L);
            });
            manager.unlock("invoice");
            assertThat(admin.getHeldLockCount()).isZero();
            LockResource forced = manager.lock("stuck");
            assertThat(admin.forceRelease("stuck", "ops-dana")).isEqualTo(1);
            assertThat(forced.isLost()).isTrue();
            assertThat(Thread.interrupted()).as("the holder, this thread, was interrupted").isTrue();
            assertThat(admin.forceRelease("stuck", "ops-dana")).isZero();
            assertThatThrownBy(() -> admin.forceRelease("stuck", "")).isInstanceOf(IllegalArgumentException.class);
            try (LockResource ignored = manager.lock(LockSpec.shared("report"))) {
                assertThat(admin.getHeldLocks()).singleElement().extracting(HeldLockInfo::getMode).isEqualTo("SHARED");
                assertThat(admin.getWaiterCount()).isZero();
                java.util.concurrent.CompletableFuture<io.github.lockmanager.TaskLock> waiting = manager
                        .lockForTaskAsync(LockSpec.of("report").fair(true), Duration.ofMinutes(1),
                                io.github.lockmanager.TaskOptions.named("writer")).toCompletableFuture();
                assertThat(admin.getWaiterCount()).as("a task's wait under way").isEqualTo(1);
                waiting.cancel(false);
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                        .until(() -> admin.getWaiterCount() == 0);
            }
            assertThat(admin.getDeadlocksEnded()).isZero();
            assertThat(admin.getDeadlockLooks()).as("no fair wait waited an interval").isZero();
        }
        assertThatThrownBy(() -> LockManagerBuilder.admin(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("LockManagerBuilder");
    }

    @Test
    void aStoreFailureDuringAbortIsAnUncheckedErrorWithTheStoresReason() throws Exception {
        LockStore refusing = new ForwardingLockStore(new InMemoryLockStore()) {
            @Override
            protected void before(String operation) throws LockManagerException {
                if (operation.equals("markAbort")) {
                    throw new LockManagerException(ErrorCode.CONNECTION_ERROR, "store unreachable");
                }
            }
        };
        try (LockManager manager = LockManagerBuilder.newBuilder().store(refusing).clientId("billing")
                .nodeId("failing-node").build()) {
            assertThatThrownBy(() -> LockManagerBuilder.admin(manager).abort("invoice"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("'invoice'").hasMessageContaining("CONNECTION_ERROR")
                    .hasNoCause();
        }
    }

    @Test
    void nothingIsRegisteredUnlessAskedFor() throws Exception {
        try (LockManager manager = LockManagerBuilder.newBuilder().store(new InMemoryLockStore()).clientId("quiet")
                .nodeId("no-jmx").build()) {
            assertThat(server.isRegistered(AdminBean.name("quiet", "no-jmx"))).isFalse();
            assertThat(manager.getNodeId()).isEqualTo("no-jmx");
        }
    }
}
