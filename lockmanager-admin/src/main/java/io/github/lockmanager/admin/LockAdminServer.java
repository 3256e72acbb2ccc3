package io.github.lockmanager.admin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.TimeSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The admin page on its own, on the JDK's HTTP server: what {@code lockmanager serve} runs. The page is at {@code /},
 * the JSON at {@code /locks.json}.
 *
 * <p><b>Security.</b> Binds to 127.0.0.1 unless told otherwise. Viewing needs no sign-in (bind to a wider address only
 * behind something that authenticates). Actions are off unless enabled, and enabling them requires a credential,
 * given at start: a user signs in with it at {@code /sign-in} and gets a session cookie ({@code HttpOnly},
 * {@code SameSite=Strict}, 8 hours); every action is a POST that carries the page's CSRF token and is logged with the
 * user and address. Plain HTTP: put TLS in front of it when it leaves the machine.
 *
 * <p>Serves on two named threads, {@code lockmanager-admin-http-N}, stopped by {@link #close()}.
 */
public final class LockAdminServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LockAdminServer.class);
    private static final String COOKIE = "lockmanager-admin-session";
    private static final Duration SESSION_LIFETIME = Duration.ofHours(8);
    private static final int MAX_FORM_BYTES = 16 * 1024;
    /** The page's port unless told otherwise: not 8080, which the applications beside it often take. */
    public static final int DEFAULT_PORT = 8642;

    private final HttpServer server;
    private final ExecutorService threads;
    private final AdminPage page;
    private final String user;
    private final byte[] password;
    private final String signInPage = AdminPage.resource("sign-in.html");
    private final Map<String, Long> sessions = new ConcurrentHashMap<>();
    private final SecureRandom random = new SecureRandom();
    private final SignInThrottle throttle;

    private LockAdminServer(Builder builder) throws IOException {
        this.user = builder.user;
        this.password = builder.password;
        this.page = new AdminPage(builder.admin, builder.actionsEnabled, builder.actionsEnabled ? "sign-in" : null);
        this.throttle = new SignInThrottle(builder.time);
        AtomicInteger number = new AtomicInteger();
        this.threads = Executors.newFixedThreadPool(2, task -> {
            Thread thread = new Thread(task, "lockmanager-admin-http-" + number.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        try {
            this.server = HttpServer.create(new InetSocketAddress(builder.address, builder.port), 50);
        } catch (BindException e) {
            threads.shutdownNow();
            throw new BindException("cannot serve the admin page on " + builder.address.getHostAddress() + ":"
                    + builder.port + ": the port is in use, or the address is not this machine's (" + e.getMessage()
                    + ")");
        }
        server.setExecutor(threads);
        server.createContext("/", this::serve);
        server.start();
        log.info("Lock admin page of {} serving at http://{}:{}/ ({})", builder.admin.scope(),
                builder.address.getHostAddress(), port(), builder.actionsEnabled
                        ? "actions enabled for user '" + user + "'" : "read-only");
    }

    /** A server for {@code admin}'s page on 127.0.0.1:{@value #DEFAULT_PORT}, read-only. */
    public static Builder builder(LockAdmin admin) {
        return new Builder(admin);
    }

    /** The port it listens on (the one the system chose when built with port 0). */
    public int port() {
        return server.getAddress().getPort();
    }

    /** Stops serving, waiting at most a second for requests in progress, and stops the server's threads. */
    @Override
    public void close() {
        server.stop(1);
        threads.shutdownNow();
    }

    private void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            if (path.equals("/sign-in") && page.actionsEnabled()) {
                signIn(exchange);
                return;
            }
            if (path.equals("/sign-out")) {
                sessionOf(exchange).ifPresent(sessions::remove);
                exchange.getResponseHeaders().add("Set-Cookie", COOKIE + "=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict");
                redirect(exchange, "/");
                return;
            }
            Map<String, String> parameters = parse(exchange.getRequestURI().getRawQuery());
            if (exchange.getRequestMethod().equals("POST")) {
                parameters.putAll(form(exchange));
            }
            String session = sessionOf(exchange).orElse(null);
            AdminPage.Response answer = page.handle(new AdminPage.Request(exchange.getRequestMethod(), path, parameters,
                    session == null ? null : user, session, exchange.getRequestHeaders().getFirst(AdminPage.CSRF_HEADER),
                    exchange.getRemoteAddress().getAddress().getHostAddress(), null));
            send(exchange, answer.status(), answer.contentType(), answer.body());
        } catch (IllegalArgumentException e) {
            send(exchange, 400, "text/plain; charset=utf-8", e.getMessage().getBytes(StandardCharsets.UTF_8));
        }
    }

    private void signIn(HttpExchange exchange) throws IOException {
        if (exchange.getRequestMethod().equals("GET")) {
            send(exchange, 200, "text/html; charset=utf-8", signInPage.replace("{{error}}", "")
                    .getBytes(StandardCharsets.UTF_8));
            return;
        }
        Map<String, String> form = form(exchange);
        String remote = exchange.getRemoteAddress().getAddress().getHostAddress();
        Duration wait = throttle.waitFor(remote);
        if (!wait.isZero()) {
            long seconds = Math.max(1, (wait.toMillis() + 999) / 1000);
            exchange.getResponseHeaders().add("Retry-After", Long.toString(seconds));
            send(exchange, 429, "text/html; charset=utf-8", signInPage.replace("{{error}}", "<p class=\"error\">Too "
                    + "many failed sign-ins from this address: try again in " + seconds + " s.</p>")
                    .getBytes(StandardCharsets.UTF_8));
            return;
        }
        if (!matches(form.get("user"), form.get("password"))) {
            Duration next = throttle.failed(remote);
            log.warn("Lock admin page: a failed sign-in as '{}' from {}{}", form.getOrDefault("user", ""), remote,
                    next.isZero() ? "" : "; that address must wait " + next.toSeconds() + " s before it tries again");
            send(exchange, 401, "text/html; charset=utf-8", signInPage.replace("{{error}}",
                    "<p class=\"error\">Wrong user or password.</p>").getBytes(StandardCharsets.UTF_8));
            return;
        }
        throttle.succeeded(remote);
        byte[] id = new byte[32];
        random.nextBytes(id);
        String session = Base64.getUrlEncoder().withoutPadding().encodeToString(id);
        long now = System.nanoTime();
        sessions.values().removeIf(expiry -> expiry - now < 0);
        sessions.put(session, System.nanoTime() + SESSION_LIFETIME.toNanos());
        log.info("Lock admin page: '{}' signed in from {}", user, remote);
        exchange.getResponseHeaders().add("Set-Cookie", COOKIE + "=" + session + "; Path=/; Max-Age="
                + SESSION_LIFETIME.toSeconds() + "; HttpOnly; SameSite=Strict");
        redirect(exchange, "/");
    }

    private boolean matches(String givenUser, String givenPassword) {
        boolean userMatches = givenUser != null && MessageDigest.isEqual(user.getBytes(StandardCharsets.UTF_8),
                givenUser.getBytes(StandardCharsets.UTF_8));
        boolean passwordMatches = givenPassword != null && MessageDigest.isEqual(password,
                givenPassword.getBytes(StandardCharsets.UTF_8));
        return userMatches & passwordMatches;
    }

    private Optional<String> sessionOf(HttpExchange exchange) {
        for (String header : exchange.getRequestHeaders().getOrDefault("Cookie", List.of())) {
            for (String cookie : header.split(";")) {
                String[] pair = cookie.trim().split("=", 2);
                if (pair.length == 2 && pair[0].equals(COOKIE)) {
                    Long expiry = sessions.get(pair[1]);
                    if (expiry != null && expiry - System.nanoTime() > 0) {
                        return Optional.of(pair[1]);
                    }
                }
            }
        }
        return Optional.empty();
    }

    private static Map<String, String> form(HttpExchange exchange) throws IOException {
        try (InputStream body = exchange.getRequestBody()) {
            byte[] bytes = body.readNBytes(MAX_FORM_BYTES + 1);
            if (bytes.length > MAX_FORM_BYTES) {
                throw new IllegalArgumentException("the form is larger than " + MAX_FORM_BYTES + " bytes");
            }
            return parse(new String(bytes, StandardCharsets.UTF_8));
        }
    }

    /** An {@code application/x-www-form-urlencoded} text; the first value of a name wins. */
    private static Map<String, String> parse(String encoded) {
        Map<String, String> values = new HashMap<>();
        if (encoded == null || encoded.isEmpty()) {
            return values;
        }
        for (String pair : encoded.split("&")) {
            int equals = pair.indexOf('=');
            String name = URLDecoder.decode(equals < 0 ? pair : pair.substring(0, equals), StandardCharsets.UTF_8);
            String value = equals < 0 ? "" : URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8);
            values.putIfAbsent(name, value);
        }
        return values;
    }

    private static void redirect(HttpExchange exchange, String location) throws IOException {
        exchange.getResponseHeaders().add("Location", location);
        send(exchange, 303, "text/plain; charset=utf-8", new byte[0]);
    }

    private static void send(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        AdminPage.SECURITY_HEADERS.forEach(exchange.getResponseHeaders()::add);
        exchange.getResponseHeaders().add("Content-Type", contentType);
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head || body.length == 0 ? -1 : body.length);
        if (!head && body.length > 0) {
            exchange.getResponseBody().write(body);
        }
    }

    /** Settings of a {@link LockAdminServer}; each is checked when set. */
    public static final class Builder {
        private final LockAdmin admin;
        private InetAddress address = InetAddress.getLoopbackAddress();
        private int port = DEFAULT_PORT;
        private TimeSource time = TimeSource.system();
        private boolean actionsEnabled;
        private String user;
        private byte[] password;

        private Builder(LockAdmin admin) {
            this.admin = Require.notNull(admin, "admin");
        }

        /** The address to listen on; default 127.0.0.1, so only this machine can reach the page. */
        public Builder bindAddress(InetAddress address) {
            this.address = Require.notNull(address, "bindAddress");
            return this;
        }

        /**
         * The port to listen on; default {@value #DEFAULT_PORT}; 0 lets the system choose ({@link #port()} tells which).
         *
         * @throws IllegalArgumentException if not 0 to 65535
         */
        public Builder port(int port) {
            Require.argument(port >= 0 && port <= 65535, "port must be 0 to 65535, was %s", port);
            this.port = port;
            return this;
        }

        /** The clock of the sign-in throttle (failed sign-ins from one address make it wait); tests move a manual one. */
        public Builder timeSource(TimeSource time) {
            this.time = Require.notNull(time, "timeSource");
            return this;
        }

        /**
         * Enables abort, force-release and clean-up for whoever signs in with this credential; failed sign-ins slow
         * down: after 5 from one address, each further try waits twice as long as the last, up to 5 minutes.
         *
         * @throws IllegalArgumentException if the user is blank or the password shorter than 8 chars
         */
        public Builder actionsFor(String user, String password) {
            Require.argument(user != null && !user.isBlank(), "the user who may act must be named");
            Require.argument(password != null && password.length() >= 8,
                    "the password of user '%s' must have at least 8 chars", user);
            this.user = user;
            this.password = password.getBytes(StandardCharsets.UTF_8);
            this.actionsEnabled = true;
            return this;
        }

        /**
         * Starts serving.
         *
         * @throws java.net.BindException if the address cannot be bound (the port is taken, the address is not this
         *                                 machine's), naming address and port
         * @throws IOException             if the server cannot start otherwise
         */
        public LockAdminServer start() throws IOException {
            return new LockAdminServer(this);
        }
    }
}
