package io.github.lockmanager.engine;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.ManualTimeSource;
import io.github.lockmanager.store.memory.InMemoryLockStore;
import org.junit.jupiter.api.Test;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

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
            assertThat((String[]) server.getAttribute(name, "HeldLocks")).singleElement().asString()
                    .contains("DC 'report'", "thread '" + Thread.currentThread().getName() + "'", "2 hold(s)",
                            "for PT1M30S", "fencing token 1");

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
    void nothingIsRegisteredUnlessAskedFor() throws Exception {
        try (LockManager manager = LockManagerBuilder.newBuilder().store(new InMemoryLockStore()).clientId("quiet")
                .nodeId("no-jmx").build()) {
            assertThat(server.isRegistered(AdminBean.name("quiet", "no-jmx"))).isFalse();
            assertThat(manager.getNodeId()).isEqualTo("no-jmx");
        }
    }
}
