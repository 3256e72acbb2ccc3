package io.github.lockmanager.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.github.lockmanager.LockManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Actuator endpoint and health indicator, the meters and the admin page of a Spring Boot web application, on
 * PostgreSQL; a subclass runs them on another store.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ActuatorAndAdminPageTest {
    private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private ConfigurableApplicationContext context;
    private String base;

    /** The settings of the application's store and node. */
    List<String> storeSettings(String client, String nodeId) {
        return BootApps.postgres(client, nodeId);
    }

    @BeforeAll
    void start() {
        context = BootApps.start(WebApp.class, WebApplicationType.SERVLET, storeSettings(BootApps.clientId(), "web-node"),
                "server.port=0",
                "server.address=127.0.0.1",
                "management.endpoints.web.exposure.include=locks,lockwaiters,health",
                "management.endpoint.health.show-details=always",
                "lockmanager.admin.enabled=true", BootApps.WITHOUT_SECURITY);
        base = "http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    @AfterAll
    void stop() {
        threads.shutdownNow();
        context.close();
    }

    @Test
    void theEndpointListsAHeldLockAndItsAbortInterruptsTheHolder() throws Exception {
        Worker worker = context.getBean(Worker.class);
        CountDownLatch entered = new CountDownLatch(1);
        Future<String> holder = threads.submit(() -> worker.work("batch/7", entered));
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();

        HttpResponse<String> list = get("/actuator/locks");
        assertThat(list.statusCode()).isEqualTo(200);
        assertThat(list.body()).contains("\"key\":\"batch/7\"").contains("\"node\":\"web-node\"")
                .contains("\"status\":\"RUNNING\"");
        HttpResponse<String> one = get("/actuator/locks/batch/7");
        assertThat(one.body()).contains("\"key\":\"batch/7\"");

        // as an operator types it: no body, no content type
        HttpResponse<String> abort = http.send(HttpRequest.newBuilder(URI.create(base + "/actuator/locks/batch/7?level=dc"))
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(abort.statusCode()).as(abort.body()).isEqualTo(200);
        assertThat(holder.get(30, TimeUnit.SECONDS)).isEqualTo("interrupted");
        assertThat(context.getBean(LockManager.class).isLocked("batch/7")).isFalse();

        HttpResponse<String> badLevel = get("/actuator/locks/batch/7?level=ZZ");
        assertThat(badLevel.statusCode()).isEqualTo(400);
        assertThat(badLevel.body()).as("the reason is in the answer").contains("level must be DC or XDC, was 'ZZ'");
        HttpResponse<String> badAbort = http.send(HttpRequest.newBuilder(URI.create(base
                        + "/actuator/locks/batch/7?level=planet")).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(badAbort.statusCode()).isEqualTo(400);
        assertThat(badAbort.body()).contains("'planet'");
    }

    @Test
    void theWaitersEndpointListsAFairWaiterWithItsPlace() throws Exception {
        LockManager manager = context.getBean(LockManager.class);
        try (io.github.lockmanager.LockResource held = manager.lock("report/9")) {
            java.util.concurrent.CompletableFuture<io.github.lockmanager.TaskLock> waiting = manager.lockForTaskAsync(
                    io.github.lockmanager.LockSpec.of("report/9").fair(true), Duration.ofMinutes(1),
                    io.github.lockmanager.TaskOptions.named("report-run")).toCompletableFuture();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                    .until(() -> get("/actuator/lockwaiters").body().contains("report/9"));
            assertThat(get("/actuator/lockwaiters").body()).contains("\"owner\":\"task:report-run\"",
                    "\"place\":1", "\"node\":\"web-node\"");
            waiting.cancel(false);
        }
    }

    @Test
    void theHealthIndicatorReportsTheStoreAndTheNode() throws Exception {
        HttpResponse<String> health = get("/actuator/health/lockManager");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"status\":\"UP\"").contains("\"node\":\"web-node\"");
    }

    @Test
    void theMetersAreBoundToTheApplicationsRegistry() throws Exception {
        Worker worker = context.getBean(Worker.class);
        worker.quick();
        MeterRegistry registry = context.getBean(MeterRegistry.class);
        assertThat(registry.find("lockmanager.acquisitions").counters())
                .anySatisfy(counter -> assertThat(counter.count()).isPositive());
    }

    @Test
    void theAdminPageIsServedUnderItsPath() throws Exception {
        HttpResponse<String> page = get("/lockmanager/");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).contains("html"));
        assertThat(page.headers().firstValue("Content-Security-Policy")).isPresent();
        HttpResponse<String> json = get("/lockmanager/locks.json");
        assertThat(json.statusCode()).isEqualTo(200);
        assertThat(json.body()).contains("\"locks\"");
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String json) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Worker.class)
    static class WebApp {
    }

    public static class Worker {
        @ClusterLocked(key = "#{#key}")
        public String work(String key, CountDownLatch entered) {
            return BootApps.blockUntilInterrupted(entered);
        }

        @ClusterLocked(key = "quick")
        public void quick() {
        }
    }
}
