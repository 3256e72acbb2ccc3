package io.github.lockmanager.admin;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.TaskLock;
import io.github.lockmanager.TaskOptions;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The servlet mounted in Jetty under {@code /admin/locks/*}. The container's sign-in is played by a filter that takes
 * the user and roles from request headers: the servlet only reads the principal and roles the container gives it.
 */
class LockAdminServletTest extends AdminFixture {
    private static final Pattern CSRF = Pattern.compile("data-csrf=\"([^\"]*)\"");

    private final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    private Server jetty;

    @AfterEach
    void stopJetty() throws Exception {
        if (jetty != null) {
            jetty.stop();
        }
    }

    private String mount(LockAdminServlet servlet) throws Exception {
        jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        context.addFilter(new FilterHolder((Filter) (request, response, chain) ->
                chain.doFilter(signedIn((HttpServletRequest) request), response)), "/*", EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(servlet), "/admin/locks/*");
        jetty.setHandler(context);
        jetty.start();
        return "http://127.0.0.1:" + connector.getLocalPort() + "/admin/locks";
    }

    /** The request as the container would pass it after signing in the user named by {@code X-Test-User}. */
    private static HttpServletRequest signedIn(HttpServletRequest request) {
        String user = request.getHeader("X-Test-User");
        String roles = request.getHeader("X-Test-Roles");
        return user == null ? request : new HttpServletRequestWrapper(request) {
            @Override
            public Principal getUserPrincipal() {
                return () -> user;
            }

            @Override
            public boolean isUserInRole(String role) {
                return roles != null && roles.contains(role);
            }
        };
    }

    private HttpResponse<String> send(String uri, String method, String body, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(uri)).method(method, body == null
                ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void showsTheLocksUnderItsMountPathAndServesTheJson() throws Exception {
        LockManager a = node("node-a");
        hold(a, "order-1");
        hold(node("node-b"), "order-2");
        String base = mount(new LockAdminServlet(admin().build()));

        HttpResponse<String> bare = send(base, "GET", null);
        assertThat(bare.statusCode()).isEqualTo(302);
        assertThat(bare.headers().firstValue("Location")).get().asString().endsWith("/admin/locks/");

        HttpResponse<String> page = send(base + "/", "GET", null);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<script src=\"admin.js\" defer></script>", "data-actions=\"disabled\"");
        assertThat(page.headers().firstValue("Content-Security-Policy")).isPresent();
        assertThat(send(base + "/admin.css", "GET", null).statusCode()).isEqualTo(200);

        HttpResponse<String> json = send(base + "/locks.json?node=node-b", "GET", null);
        assertThat(json.statusCode()).isEqualTo(200);
        assertThat(json.body()).contains("\"total\": 2", "\"key\": \"order-2\"").doesNotContain("\"key\": \"order-1\"");
    }

    /** A fair waiter's request is shown as a waiter with its place, never as a lock. */
    @Test
    void showsWhoWaitsInTurnBesideTheLocks() throws Exception {
        LockManager a = node("node-a");
        LockManager b = node("node-b");
        hold(a, "report");
        CompletableFuture<TaskLock> waiting = b.lockForTaskAsync(LockSpec.of("report").fair(true),
                Duration.ofMinutes(1), TaskOptions.named("nightly")).toCompletableFuture();
        LockAdmin admin = admin().build();
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.snapshot().waiters().size() == 1);
        assertThat(admin.snapshot().locks()).hasSize(1);
        String base = mount(new LockAdminServlet(admin));

        HttpResponse<String> json = send(base + "/locks.json", "GET", null);
        assertThat(json.body()).contains("\"total\": 1", "\"waiting\": 1", "\"owner\": \"task:nightly\"",
                "\"node\": \"node-b\"");
        waiting.cancel(false);
        await().atMost(Duration.ofSeconds(30)).until(() -> admin.snapshot().waiters().isEmpty());
    }

    @Test
    void actsOnlyForAContainerUserInTheRoleWithTheCsrfToken() throws Exception {
        Holder holder = hold(node("node-a"), "report");
        String base = mount(new LockAdminServlet(admin().build(), true, "lock-admin"));
        String abort = base + "/actions/abort";
        String form = "key=report&level=DC";
        String[] formType = {"Content-Type", "application/x-www-form-urlencoded"};

        HttpResponse<String> anonymous = send(abort, "POST", form, formType);
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.body()).contains("actions need a signed-in user");

        HttpResponse<String> outsider = send(abort, "POST", form, "Content-Type", "application/x-www-form-urlencoded",
                "X-Test-User", "guest", "X-Test-Roles", "viewer");
        assertThat(outsider.statusCode()).isEqualTo(401);

        Matcher csrf = CSRF.matcher(send(base + "/", "GET", null, "X-Test-User", "ops", "X-Test-Roles", "lock-admin")
                .body());
        assertThat(csrf.find()).isTrue();
        HttpResponse<String> forged = send(abort, "POST", form, "Content-Type", "application/x-www-form-urlencoded",
                "X-Test-User", "ops", "X-Test-Roles", "lock-admin");
        assertThat(forged.statusCode()).isEqualTo(403);
        assertThat(holder.interrupted).isNotDone();

        HttpResponse<String> done = send(abort, "POST", form, "Content-Type", "application/x-www-form-urlencoded",
                "X-Test-User", "ops", "X-Test-Roles", "lock-admin", "X-Lock-Admin-Token", csrf.group(1));
        assertThat(done.statusCode()).isEqualTo(200);
        holder.interrupted.get(10, TimeUnit.SECONDS);
        // a token is bound to its user: another admin cannot replay it
        assertThat(send(abort, "POST", form, "Content-Type", "application/x-www-form-urlencoded", "X-Test-User", "other",
                "X-Test-Roles", "lock-admin", "X-Lock-Admin-Token", csrf.group(1)).statusCode()).isEqualTo(403);
    }
}
