package io.github.lockmanager.admin;

import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.store.support.CountingLockStore;
import io.github.lockmanager.testing.support.InstrumentedStore;
import io.github.lockmanager.testing.support.ManualTimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The standalone admin server over HTTP, on locks held by two nodes on PostgreSQL. */
class LockAdminServerTest extends AdminFixture {
    private static final Pattern CSRF = Pattern.compile("data-csrf=\"([^\"]*)\"");

    private final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    private LockAdminServer server;
    /** The session cookie, sent as a browser would once signed in. */
    private String cookie;

    @AfterEach
    void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    private LockAdminServer serve(LockAdmin admin, boolean actions) throws Exception {
        LockAdminServer.Builder builder = LockAdminServer.builder(admin).port(0);
        server = (actions ? builder.actionsFor("operator", "correct horse") : builder).start();
        return server;
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(withCookie(HttpRequest.newBuilder(uri(path))).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String form, String csrf) throws Exception {
        HttpRequest.Builder request = withCookie(HttpRequest.newBuilder(uri(path)))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form));
        if (csrf != null) {
            request.header("X-Lock-Admin-Token", csrf);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder withCookie(HttpRequest.Builder request) {
        return cookie == null ? request : request.header("Cookie", cookie);
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }

    private static String form(String key, LockLevel level) {
        return "key=" + URLEncoder.encode(key, StandardCharsets.UTF_8) + "&level=" + level;
    }

    /** Signs in and answers the CSRF token of the page the user then sees. */
    private String signIn() throws Exception {
        HttpResponse<String> signedIn = post("/sign-in", "user=operator&password=correct+horse", null);
        assertThat(signedIn.statusCode()).isEqualTo(303);
        String setCookie = signedIn.headers().firstValue("Set-Cookie").orElseThrow();
        assertThat(setCookie).contains("HttpOnly").contains("SameSite=Strict");
        cookie = setCookie.substring(0, setCookie.indexOf(';'));
        Matcher csrf = CSRF.matcher(get("/").body());
        assertThat(csrf.find()).isTrue();
        assertThat(csrf.group(1)).isNotEmpty();
        return csrf.group(1);
    }

    @Test
    void listsEveryNodesLocksAndFiltersThem() throws Exception {
        LockManager a = node("node-a");
        LockManager b = node("node-b");
        hold(a, "order-1");
        hold(b, "order-2");
        hold(b, "invoice-7");
        serve(admin().build(), false);

        HttpResponse<String> all = get("/locks.json");
        assertThat(all.statusCode()).isEqualTo(200);
        assertThat(all.headers().firstValue("Content-Type")).get().asString().startsWith("application/json");
        assertThat(all.body()).contains("\"total\": 3", "\"nodes\": [\"node-a\", \"node-b\"]",
                "\"key\": \"order-1\"", "\"node\": \"node-a\"", "\"key\": \"invoice-7\"", "\"status\": \"RUNNING\"",
                "\"heldTooLong\": false");

        assertThat(get("/locks.json?prefix=order-").body()).contains("order-1", "order-2").doesNotContain("invoice-7");
        assertThat(get("/locks.json?node=node-b").body()).contains("order-2", "invoice-7").doesNotContain("order-1");
        assertThat(get("/locks.json?status=ABORT").body()).doesNotContain("\"key\"");

        HttpResponse<String> badStatus = get("/locks.json?status=LOST");
        assertThat(badStatus.statusCode()).isEqualTo(400);
        assertThat(badStatus.body()).contains("status must be RUNNING or ABORT, was 'LOST'");

        HttpResponse<String> page = get("/");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Security-Policy")).get().asString()
                .contains("script-src 'self'").contains("frame-ancestors 'none'");
        assertThat(page.body()).contains("data-actions=\"disabled\"", "client &#39;" + client + "&#39;");
        assertThat(get("/admin.js").statusCode()).isEqualTo(200);
        assertThat(get("/nothing-here").statusCode()).isEqualTo(404);
    }

    @Test
    void manyViewersShareOneScanOfTheStoreUntilItsTimeIsUp() throws Exception {
        hold(node("node-a"), "shared-scan");
        ManualTimeSource clock = new ManualTimeSource();
        CountingLockStore counted = new CountingLockStore(store);
        LockAdmin admin = LockAdmin.builder(counted).clientId(client).snapshotTtl(Duration.ofSeconds(2))
                .timeSource(clock).build();
        serve(admin, false);

        List<CompletableFuture<HttpResponse<String>>> views = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            views.add(http.sendAsync(HttpRequest.newBuilder(uri("/locks.json")).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        for (CompletableFuture<HttpResponse<String>> view : views) {
            assertThat(view.get(30, TimeUnit.SECONDS).body()).contains("shared-scan");
        }
        assertThat(counted.calls("list")).isEqualTo(1);

        clock.advance(Duration.ofMillis(2001));
        assertThat(get("/locks.json").body()).contains("shared-scan");
        assertThat(counted.calls("list")).isEqualTo(2);
    }

    @Test
    void aPageGetsAtMostMaxRowsAndSaysHowManyMatched() throws Exception {
        LockManager a = node("node-a");
        for (int i = 0; i <= AdminPage.MAX_ROWS; i++) {
            a.lock(String.format("bulk-%04d", i));
        }
        serve(admin().build(), false);
        String json = get("/locks.json?prefix=bulk-").body();
        assertThat(json).contains("\"matching\": " + (AdminPage.MAX_ROWS + 1), "bulk-0000")
                .doesNotContain(String.format("bulk-%04d", AdminPage.MAX_ROWS));
        assertThat(json.split("\"key\": ", -1)).hasSize(AdminPage.MAX_ROWS + 1);
    }

    @Test
    void aFailedScanIsReportedAndNotKept() throws Exception {
        hold(node("node-a"), "survives");
        InstrumentedStore cuttable = new InstrumentedStore(store);
        serve(LockAdmin.builder(cuttable).clientId(client).snapshotTtl(Duration.ofMinutes(1))
                .timeSource(new ManualTimeSource()).build(), false);
        cuttable.setUnreachable(true);
        HttpResponse<String> failed = get("/locks.json");
        assertThat(failed.statusCode()).isEqualTo(503);
        assertThat(failed.body()).contains("the lock store failed");

        cuttable.setUnreachable(false);
        assertThat(get("/locks.json").body()).as("scanned again at once, within the snapshot's time")
                .contains("\"key\": \"survives\"");
    }

    @Test
    void flagsLocksHeldLongerThanTheThreshold() throws Exception {
        hold(node("node-a"), "slow-job");
        ManualTimeSource clock = new ManualTimeSource(java.time.Instant.now());
        serve(admin().heldTooLongThreshold(Duration.ofMinutes(5)).timeSource(clock).build(), false);
        assertThat(get("/locks.json").body()).contains("\"heldTooLong\": false", "\"heldTooLongThreshold\": \"PT5M\"");

        clock.advance(Duration.ofMinutes(6));
        assertThat(get("/locks.json").body()).contains("\"heldTooLong\": true");
    }

    @Test
    void actionsAreRefusedWhenDisabledWithoutSignInOrWithoutTheCsrfToken() throws Exception {
        hold(node("node-a"), "guarded");
        serve(admin().build(), false);
        HttpResponse<String> disabled = post("/actions/abort", form("guarded", LockLevel.DC), null);
        assertThat(disabled.statusCode()).isEqualTo(403);
        assertThat(disabled.body()).contains("actions are disabled");
        server.close();

        serve(admin().build(), true);
        HttpResponse<String> anonymous = post("/actions/abort", form("guarded", LockLevel.DC), null);
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.body()).contains("sign in first");
        assertThat(get("/").body()).contains("data-csrf=\"\"", "data-sign-in=\"sign-in\"");

        HttpResponse<String> wrongPassword = post("/sign-in", "user=operator&password=guess", null);
        assertThat(wrongPassword.statusCode()).isEqualTo(401);
        assertThat(wrongPassword.body()).contains("Wrong user or password");
        assertThat(post("/actions/abort", form("guarded", LockLevel.DC), null).statusCode()).isEqualTo(401);

        String csrf = signIn();
        HttpResponse<String> noToken = post("/actions/abort", form("guarded", LockLevel.DC), null);
        assertThat(noToken.statusCode()).isEqualTo(403);
        assertThat(noToken.body()).contains("no valid CSRF token");
        assertThat(post("/actions/abort", form("guarded", LockLevel.DC), csrf + "x").statusCode()).isEqualTo(403);
        assertThat(get("/actions/abort").statusCode()).isEqualTo(405);

        assertThat(get("/locks.json").body()).contains("\"status\": \"RUNNING\"").doesNotContain("ABORT");
    }

    @Test
    void abortInterruptsTheHolderOnItsNodeAndShowsInTheList() throws Exception {
        LockManager a = node("node-a");
        Holder holder = hold(a, "order-9");
        serve(admin().build(), true);
        String csrf = signIn();

        HttpResponse<String> aborted = post("/actions/abort", form("order-9", LockLevel.DC), csrf);
        assertThat(aborted.statusCode()).isEqualTo(200);
        assertThat(aborted.body()).contains("Abort asked of the holders of 'order-9'");
        holder.interrupted.get(10, TimeUnit.SECONDS);
        assertThat(get("/locks.json?status=ABORT").body()).contains("\"key\": \"order-9\"", "\"status\": \"ABORT\"");

        HttpResponse<String> missing = post("/actions/abort", form("no-such-lock", LockLevel.DC), csrf);
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.body()).contains("'no-such-lock' (DC) is not locked");
    }

    @Test
    void forceReleaseTakesTheLockFromItsHolderAndCleanUpAnswers() throws Exception {
        LockManager b = node("node-b");
        Holder holder = hold(b, "migration");
        serve(admin().build(), true);
        String csrf = signIn();

        HttpResponse<String> released = post("/actions/force-release", form("migration", LockLevel.DC), csrf);
        assertThat(released.statusCode()).isEqualTo(200);
        assertThat(released.body()).contains("Released 1 holder of 'migration'");
        await().atMost(Duration.ofSeconds(10)).until(() -> holder.lock.isLost());
        assertThat(get("/locks.json").body()).doesNotContain("migration");

        HttpResponse<String> cleaned = post("/actions/clean-up", "", csrf);
        assertThat(cleaned.statusCode()).isEqualTo(200);
        assertThat(cleaned.body()).contains("idle lock records");
    }

    @Test
    void badInputIsRefusedNamingWhatIsWrongAndReachesNoStore() throws Exception {
        serve(admin().build(), true);
        String csrf = signIn();
        HttpResponse<String> nul = post("/actions/abort", "key=a%00b&level=DC", csrf);
        assertThat(nul.statusCode()).isEqualTo(400);
        assertThat(nul.body()).contains("must not contain the NUL character (at index 1)");
        HttpResponse<String> level = post("/actions/force-release", "key=a&level=RACK", csrf);
        assertThat(level.statusCode()).isEqualTo(400);
        assertThat(level.body()).contains("level must be DC or XDC, was 'RACK'");
        assertThat(post("/actions/abort", "level=DC", csrf).body()).contains("key is missing");
        assertThat(post("/actions/abort", "key=" + "k".repeat(300) + "&level=DC", csrf).body())
                .contains("lock key is 300 chars long, the maximum is 256");
        assertThat(get("/locks.json?prefix=" + "p".repeat(300)).statusCode()).isEqualTo(400);
    }

    @Test
    void keysAreTextInTheJsonNeverMarkup() throws Exception {
        String key = "<img src=x onerror=alert(1)>\"&'";
        hold(node("node-a"), key);
        serve(admin().build(), false);
        String json = get("/locks.json").body();
        assertThat(json).doesNotContain("<img").contains("\\u003cimg src=x onerror=alert(1)\\u003e\\\"\\u0026'");
    }

    @Test
    void settingsAreCheckedWhereTheyAreGiven() {
        LockAdmin admin = admin().build();
        assertThatThrownBy(() -> LockAdminServer.builder(admin).actionsFor("operator", "short"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 8 chars");
        assertThatThrownBy(() -> LockAdminServer.builder(admin).actionsFor(" ", "long enough"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be named");
        assertThatThrownBy(() -> LockAdminServer.builder(admin).port(70000))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("port must be 0 to 65535, was 70000");
        assertThatThrownBy(() -> admin().snapshotTtl(Duration.ofMinutes(2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("snapshotTtl must be between");
        assertThatThrownBy(() -> admin().clientId("a#b"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("clientId must not contain '#'");
        assertThatThrownBy(() -> LockAdmin.builder(store).allClients().build().abort("k", LockLevel.DC, "me"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("name the client");
    }

    @Test
    void guessedPasswordsSlowDownUntilTheRightOneMustWaitToo() throws Exception {
        ManualTimeSource clock = new ManualTimeSource();
        server = LockAdminServer.builder(admin().build()).port(0).timeSource(clock)
                .actionsFor("operator", "correct horse").start();
        for (int i = 0; i < 5; i++) {
            assertThat(post("/sign-in", "user=operator&password=guess" + i, null).statusCode()).isEqualTo(401);
        }
        assertThat(post("/sign-in", "user=operator&password=guess5", null).statusCode()).as("the sixth failure")
                .isEqualTo(401);
        for (int i = 0; i < 25; i++) {
            HttpResponse<String> refused = post("/sign-in", "user=operator&password=guess" + i, null);
            assertThat(refused.statusCode()).isEqualTo(429);
        }
        HttpResponse<String> right = post("/sign-in", "user=operator&password=correct+horse", null);
        assertThat(right.statusCode()).as("the right password while it must wait").isEqualTo(429);
        assertThat(right.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(right.body()).contains("try again in 1 s");

        clock.advance(Duration.ofSeconds(1));
        assertThat(post("/sign-in", "user=operator&password=guess", null).statusCode()).isEqualTo(401);
        assertThat(post("/sign-in", "user=operator&password=correct+horse", null).statusCode())
                .as("waits twice as long after one more failure").isEqualTo(429);
        clock.advance(Duration.ofSeconds(2));
        assertThat(signIn()).as("signed in after the wait").isNotEmpty();
        cookie = null;
        assertThat(post("/sign-in", "user=operator&password=guess", null).statusCode()).as("a success forgets")
                .isEqualTo(401);
    }
}
