package io.github.lockmanager.spring.boot;

import io.github.lockmanager.store.jdbc.DatabaseAccess;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;

/** Starts Spring Boot applications on the test PostgreSQL, each a node of one client. */
final class BootApps {
    private BootApps() {
    }

    /** A client id of its own per test class, so no test sees another's locks. */
    static String clientId() {
        return "boot-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** The properties every test application on PostgreSQL has. */
    static List<String> postgres(String clientId, String nodeId) {
        return List.of(
                "spring.datasource.url=" + DatabaseAccess.postgresUrl(),
                "spring.datasource.username=postgres",
                "spring.datasource.hikari.maximum-pool-size=4",
                "lockmanager.jdbc.table-name=boot_starter_locks",
                "lockmanager.client-id=" + clientId,
                "lockmanager.node-id=" + nodeId,
                "lockmanager.lease=3s",
                "lockmanager.abort-poll-interval=200ms",
                "lockmanager.wait-poll-interval=20ms",
                "lockmanager.shutdown-timeout=5s",
                "logging.level.root=warn");
    }

    /**
     * The properties of a test application on the machine's Redis ({@code -Dredis.uri}, default
     * {@code redis://127.0.0.1:6379}), found by Spring Boot's own Redis settings; it has no DataSource.
     */
    static List<String> redis(String clientId, String nodeId) {
        List<String> settings = new java.util.ArrayList<>(postgres(clientId, nodeId).subList(4, 11));
        settings.add("spring.data.redis.url=" + System.getProperty("redis.uri", "redis://127.0.0.1:6379"));
        settings.add("lockmanager.redis.key-prefix=boot:");
        settings.add("spring.autoconfigure.exclude=org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration");
        return settings;
    }

    /** Work that holds its lock until its thread is interrupted: tells {@code entered}, then blocks. */
    static String blockUntilInterrupted(CountDownLatch entered) {
        entered.countDown();
        try {
            new CountDownLatch(1).await();
            return "not interrupted";
        } catch (InterruptedException e) {
            return "interrupted";
        }
    }

    /** The messages of a failure and its causes, outermost first. */
    static List<String> messages(Throwable failure) {
        List<String> messages = new ArrayList<>();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.add(String.valueOf(t.getMessage()));
        }
        return messages;
    }

    /**
     * Leaves Spring Security's auto-configuration out: on the tests' class path for the secured admin page's test,
     * it would put every other web test's endpoints behind a sign-in.
     */
    static final String WITHOUT_SECURITY = "spring.autoconfigure.exclude="
            + "org.springframework.boot.autoconfigure.security.servlet.SecurityAutoConfiguration,"
            + "org.springframework.boot.autoconfigure.security.servlet.UserDetailsServiceAutoConfiguration,"
            + "org.springframework.boot.autoconfigure.security.servlet.SecurityFilterAutoConfiguration,"
            + "org.springframework.boot.actuate.autoconfigure.security.servlet.ManagementWebSecurityAutoConfiguration";

    static ConfigurableApplicationContext start(Class<?> application, WebApplicationType web, List<String> base,
                                                String... more) {
        List<String> properties = new ArrayList<>(base);
        properties.addAll(Arrays.asList(more));
        // one property may be given once: the classes left out by several settings go in one list
        String exclude = "spring.autoconfigure.exclude=";
        List<String> excluded = properties.stream().filter(p -> p.startsWith(exclude))
                .map(p -> p.substring(exclude.length())).toList();
        if (excluded.size() > 1) {
            properties.removeIf(p -> p.startsWith(exclude));
            properties.add(exclude + String.join(",", excluded));
        }
        return new SpringApplicationBuilder(application)
                .web(web)
                .logStartupInfo(false)
                .properties("spring.main.banner-mode=off")
                .properties(properties.toArray(String[]::new))
                .run();
    }
}
