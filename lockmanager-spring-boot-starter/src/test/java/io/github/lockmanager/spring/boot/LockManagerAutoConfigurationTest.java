package io.github.lockmanager.spring.boot;

import io.github.lockmanager.Lock;
import io.github.lockmanager.LockException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.jdbc.DatabaseAccess;
import io.github.lockmanager.store.jdbc.StatementLog;
import io.github.lockmanager.store.memory.InMemoryLockStore;
import io.github.lockmanager.store.redis.RedisLockStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The manager a Spring Boot application gets from its properties and beans, and what its shutdown leaves. */
class LockManagerAutoConfigurationTest {
    private static final String CLIENT = BootApps.clientId();
    private static final String NO_DATA_SOURCE =
            "spring.autoconfigure.exclude=org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration";

    @Test
    void propertiesReachTheManagerAndTheStore() throws Exception {
        try (ConfigurableApplicationContext context = BootApps.start(App.class, WebApplicationType.NONE,
                BootApps.postgres(CLIENT, "props-node"), "lockmanager.lease=7s", "lockmanager.default-level=xdc",
                "lockmanager.jdbc.table-name=boot_props_locks")) {
            LockManager manager = context.getBean(LockManager.class);
            assertThat(manager.getNodeId()).isEqualTo("props-node");
            assertThat(manager.getDefaultLevel()).isEqualTo(LockLevel.XDC);
            assertThat(LockManagerBuilder.admin(manager).getClientId()).isEqualTo(CLIENT);
            try (LockResource ignored = manager.lock("props-key")) {
                Lock lock = manager.inspect("props-key", LockLevel.XDC).get(0);
                assertThat(Duration.between(lock.getLockTime(), lock.getExpirationTime()))
                        .as("the lease of lockmanager.lease").isBetween(Duration.ofSeconds(6), Duration.ofSeconds(8));
                Integer rows = context.getBean(JdbcTemplate.class).queryForObject(
                        "SELECT COUNT(*) FROM boot_props_locks WHERE lock_key LIKE ?", Integer.class,
                        "%" + CLIENT + "#props-key");
                assertThat(rows).as("the lock is in lockmanager.jdbc.table-name").isEqualTo(1);
            }
        }
    }

    /* the database keeps no trace of how a commit went, so the release statements are read as the store sent them */
    @Test
    void jdbcDurableReleasesReachesTheStore() throws LockException {
        assertThat(releasesSent()).as("releases by default").isNotEmpty()
                .allMatch(sql -> sql.contains("synchronous_commit"));
        assertThat(releasesSent("lockmanager.jdbc.durable-releases=true")).as("durable releases").isNotEmpty()
                .noneMatch(sql -> sql.contains("synchronous_commit"));
    }

    private static List<String> releasesSent(String... settings) throws LockException {
        LoggedApp.sent = new StatementLog();
        try (ConfigurableApplicationContext context = BootApps.start(LoggedApp.class, WebApplicationType.NONE,
                BootApps.postgres(CLIENT, "durable-node"), settings)) {
            context.getBean(LockManager.class).lock("durable-key").close();
        }
        return LoggedApp.sent.containing("SET owner_token = NULL");
    }

    @Test
    void theAdminPageAskedForWithoutItsModuleFailsStartupSayingWhatToAdd() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LockManagerAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader("io.github.lockmanager.admin"))
                .withPropertyValues("lockmanager.store=memory", "lockmanager.admin.enabled=true")
                .run(context -> assertThat(context.getStartupFailure()).isNotNull().rootCause()
                        .hasMessageContaining("lockmanager.admin.enabled=true")
                        .hasMessageContaining("io.github.lockmanager:lockmanager-admin"));
    }

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void anAdminPageNoSecurityProtectsIsServedWithAWarningThatSaysSo(CapturedOutput output) {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LockManagerAutoConfiguration.class))
                .withPropertyValues("lockmanager.store=memory", "lockmanager.admin.enabled=true",
                        "lockmanager.admin.actions-enabled=true")
                .run(context -> {
                    assertThat(context.getStartupFailure()).isNull();
                    assertThat(context.getBean("lockManagerAdminServlet")).isNotNull();
                });
        assertThat(output).contains("shows every lock of this application's client to anyone who can reach it")
                .contains("Protect /lockmanager/**").contains("its actions cannot be used");
    }

    @Test
    void aRefusedValueFailsStartupNamingItsProperty() {
        assertStartupFails("lockmanager.lease", "lockmanager.lease=10ms");
        assertStartupFails("lockmanager.default-level", "lockmanager.default-level=planet");
        assertStartupFails("lockmanager.renewal-interval", "lockmanager.renewal-interval=2s");
        assertStartupFails("lockmanager.retry", "lockmanager.retry.attempts=5");
        assertStartupFails("lockmanager.jdbc.table-name", "lockmanager.jdbc.table-name=locks;drop");
        assertStartupFails("lockmanager.node-id", "lockmanager.node-id=a#b");
    }

    @Test
    void springBootsRedisSettingsAloneGiveARedisStoreWithTheLockmanagerSettings() throws Exception {
        try (ConfigurableApplicationContext context = BootApps.start(App.class, WebApplicationType.NONE,
                BootApps.redis(CLIENT, "redis-node"));
             io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(
                     System.getProperty("redis.uri", "redis://127.0.0.1:6379"))) {
            assertThat(context.getBean(LockStore.class)).isInstanceOf(RedisLockStore.class);
            LockManager manager = context.getBean(LockManager.class);
            try (LockResource ignored = manager.lock("redis-key");
                 var connection = client.connect()) {
                assertThat(connection.sync().exists("boot:DC#default#" + CLIENT + "#redis-key"))
                        .as("the lock is under lockmanager.redis.key-prefix").isEqualTo(1);
            }
        }
        assertThatThrownBy(() -> BootApps.start(App.class, WebApplicationType.NONE, BootApps.redis(CLIENT, "bad"),
                "lockmanager.redis.key-prefix=locks*"))
                .satisfies(e -> assertThat(BootApps.messages(e)).anyMatch(m -> m.contains("lockmanager.redis.key-prefix")));
    }

    @Test
    void withoutAStoreClientStartupAsksForOneOrForTheMemoryStore() {
        assertThatThrownBy(() -> BootApps.start(App.class, WebApplicationType.NONE, List.of(NO_DATA_SOURCE)))
                .rootCause()
                .hasMessageContaining("lockmanager.store")
                .hasMessageContaining("lockmanager.store=memory");
        try (ConfigurableApplicationContext context = BootApps.start(App.class, WebApplicationType.NONE,
                List.of(NO_DATA_SOURCE, "lockmanager.store=memory"))) {
            assertThat(context.getBean(LockStore.class)).isInstanceOf(InMemoryLockStore.class);
        }
    }

    @Test
    void closingTheContextReleasesEveryLockAndStopsEveryThread() throws Exception {
        ExecutorService holders = Executors.newSingleThreadExecutor();
        List<String> settings = new ArrayList<>(BootApps.postgres(CLIENT, "closing-node"));
        ConfigurableApplicationContext context = BootApps.start(JobApp.class, WebApplicationType.NONE, settings);
        try (ConfigurableApplicationContext observer = BootApps.start(App.class, WebApplicationType.NONE,
                BootApps.postgres(CLIENT, "observer-node"))) {
            Job job = context.getBean(Job.class);
            CountDownLatch entered = new CountDownLatch(1);
            Future<String> holder = holders.submit(() -> job.runUntilInterrupted(entered));
            assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
            LockManager otherNode = observer.getBean(LockManager.class);
            assertThat(otherNode.isLocked("nightly-job")).isTrue();

            context.close();

            assertThat(holder.get(30, TimeUnit.SECONDS)).as("the holder was interrupted").isEqualTo("interrupted");
            assertThat(otherNode.isLocked("nightly-job")).as("the lock was released").isFalse();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(Thread.getAllStackTraces().keySet())
                    .extracting(Thread::getName)
                    .noneMatch(name -> name.startsWith("lockmanager-closing-node")));
        } finally {
            holders.shutdownNow();
        }
    }

    private static void assertStartupFails(String property, String setting) {
        assertThatThrownBy(() -> BootApps.start(App.class, WebApplicationType.NONE,
                BootApps.postgres(CLIENT, "refused-node"), setting))
                .as(setting)
                .satisfies(e -> assertThat(BootApps.messages(e)).anyMatch(m -> m.contains(property)));
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }

    /** An application whose DataSource, the test database's pool, keeps the text of every statement prepared. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class LoggedApp {
        static volatile StatementLog sent;

        @Bean
        DataSource dataSource() {
            return sent.wrap(DatabaseAccess.postgres());
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Job.class)
    static class JobApp {
    }

    public static class Job {
        @ClusterLocked(key = "nightly-job")
        public String runUntilInterrupted(CountDownLatch entered) {
            return BootApps.blockUntilInterrupted(entered);
        }
    }
}
