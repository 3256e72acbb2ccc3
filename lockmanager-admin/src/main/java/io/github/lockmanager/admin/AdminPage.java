package io.github.lockmanager.admin;

import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The admin page's requests and answers, whatever serves them: the servlet and the standalone server only translate
 * HTTP and say who is signed in. Paths are relative to where the page is mounted.
 */
final class AdminPage {
    /**
     * The page's own CSRF token's header. Not {@code X-CSRF-Token}: that is Spring Security's default header, which the
     * page fills with Spring's own token where the application runs it ({@link HostCsrf}); headers are one name
     * whatever their case, so the two tokens need two names.
     */
    static final String CSRF_HEADER = "X-Lock-Admin-Token";
    /** Sent with every answer: the page runs only its own script and style and cannot be framed. */
    static final Map<String, String> SECURITY_HEADERS = Map.of(
            "Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
                    + "img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
            "X-Content-Type-Options", "nosniff",
            "Referrer-Policy", "no-referrer",
            "Cache-Control", "no-store");
    private static final Logger log = LoggerFactory.getLogger(AdminPage.class);
    private static final String JSON = "application/json; charset=utf-8";
    private static final int MAX_FILTER_LENGTH = 256;
    /** The most rows a page gets: a browser stays quick; filters narrow the rest down. */
    static final int MAX_ROWS = 500;

    private final LockAdmin admin;
    private final boolean actionsEnabled;
    private final String signInPath;
    private final CsrfTokens csrf = new CsrfTokens();
    private final String template = resource("admin.html");
    private final String style = resource("admin.css");
    private final String script = resource("admin.js");

    /**
     * @param signInPath where a visitor signs in to act, relative to the page; {@code null} when the container signs
     *                   users in
     */
    AdminPage(LockAdmin admin, boolean actionsEnabled, String signInPath) {
        this.admin = admin;
        this.actionsEnabled = actionsEnabled;
        this.signInPath = signInPath;
    }

    /**
     * One request.
     *
     * @param user        who is signed in, {@code null} for nobody
     * @param csrfSubject what the user's CSRF token is bound to (their session or name); {@code null} with no user
     * @param csrfToken   the {@value #CSRF_HEADER} header
     * @param remote      the client's address, for the log
     * @param hostCsrf    the CSRF token of the application's own security filter, which the page's actions must
     *                    carry too; {@code null} where there is none
     */
    record Request(String method, String path, Map<String, String> parameters, String user, String csrfSubject,
                   String csrfToken, String remote, HostCsrf hostCsrf) {
    }

    /** A CSRF token that the application's security filter (Spring Security's) checks before the page sees a POST. */
    record HostCsrf(String header, String token) {
    }

    record Response(int status, String contentType, byte[] body) {
        static Response of(int status, String contentType, String body) {
            return new Response(status, contentType, body.getBytes(StandardCharsets.UTF_8));
        }

        static Response error(int status, String message) {
            return of(status, JSON, "{\"error\": " + LockJson.quote(message) + "}");
        }
    }

    boolean actionsEnabled() {
        return actionsEnabled;
    }

    Response handle(Request request) {
        String path = request.path().isEmpty() ? "/" : request.path();
        boolean get = request.method().equals("GET") || request.method().equals("HEAD");
        return switch (path) {
            case "/" -> get ? page(request) : notAllowed("GET");
            case "/admin.css" -> get ? Response.of(200, "text/css; charset=utf-8", style) : notAllowed("GET");
            case "/admin.js" -> get ? Response.of(200, "text/javascript; charset=utf-8", script)
                    : notAllowed("GET");
            case "/locks.json" -> get ? locks(request) : notAllowed("GET");
            case "/actions/abort", "/actions/force-release", "/actions/clean-up" ->
                    request.method().equals("POST") ? action(path.substring("/actions/".length()), request)
                            : notAllowed("POST");
            default -> Response.error(404, "no such page: " + path);
        };
    }

    private static Response notAllowed(String method) {
        return Response.error(405, "only " + method + " is allowed here");
    }

    private Response page(Request request) {
        String user = request.user();
        String html = template
                .replace("{{scope}}", escape(admin.scope()))
                .replace("{{user}}", escape(user == null ? "" : user))
                .replace("{{csrf}}", user == null ? "" : csrf.tokenFor(request.csrfSubject()))
                .replace("{{hostCsrfHeader}}", request.hostCsrf() == null ? "" : escape(request.hostCsrf().header()))
                .replace("{{hostCsrfToken}}", request.hostCsrf() == null ? "" : escape(request.hostCsrf().token()))
                .replace("{{actions}}", actionsEnabled ? "enabled" : "disabled")
                .replace("{{signIn}}", escape(signInPath == null ? "" : signInPath));
        return Response.of(200, "text/html; charset=utf-8", html);
    }

    private Response locks(Request request) {
        LockFilter filter;
        try {
            filter = new LockFilter(filterText(request, "prefix"), filterText(request, "node"), status(request));
        } catch (IllegalArgumentException e) {
            return Response.error(400, e.getMessage());
        }
        try {
            LockSnapshot snapshot = admin.snapshot();
            List<LockRecord> matching = snapshot.matching(filter);
            List<LockRecord> shown = matching.size() > MAX_ROWS ? matching.subList(0, MAX_ROWS) : matching;
            Instant now = admin.now();
            StringBuilder nodes = new StringBuilder("[");
            snapshot.locks().stream().map(LockRecord::nodeId).distinct().sorted()
                    .forEach(node -> nodes.append(nodes.length() > 1 ? ", " : "").append(LockJson.quote(node)));
            String json = "{\"scope\": " + LockJson.quote(admin.scope())
                    + ", \"takenAt\": " + LockJson.quote(snapshot.takenAt().toString())
                    + ", \"total\": " + snapshot.locks().size()
                    + ", \"matching\": " + matching.size()
                    + ", \"nodes\": " + nodes.append(']')
                    + ", \"heldTooLongThreshold\": " + (admin.heldTooLongThreshold() == null ? "null"
                    : LockJson.quote(admin.heldTooLongThreshold().toString()))
                    + ", \"locks\": " + LockJson.array(shown, now, admin)
                    + ", \"waiters\": " + LockJson.waiters(snapshot.waiters().size() > MAX_ROWS
                    ? snapshot.waiters().subList(0, MAX_ROWS) : snapshot.waiters())
                    + ", \"waiting\": " + snapshot.waiters().size() + "}";
            return Response.of(200, JSON, json);
        } catch (LockManagerException e) {
            log.warn("Admin page: listing the locks of {} failed; the page shows the error and retries at its next "
                    + "refresh: {}", admin.scope(), e.toString());
            return Response.error(503, "the lock store failed: " + e.getMessage());
        }
    }

    private static String filterText(Request request, String name) {
        String value = request.parameters().get(name);
        if (value == null || value.isEmpty()) {
            return null;
        }
        if (value.length() > MAX_FILTER_LENGTH) {
            throw new IllegalArgumentException(name + " is " + value.length() + " chars long, the most is "
                    + MAX_FILTER_LENGTH);
        }
        LockKey.requireText(name, value);
        return value;
    }

    private static LockStatus status(Request request) {
        String value = request.parameters().get("status");
        if (value == null || value.isEmpty()) {
            return null;
        }
        try {
            return LockStatus.valueOf(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("status must be RUNNING or ABORT, was '" + value + "'");
        }
    }

    private Response action(String action, Request request) {
        if (!actionsEnabled) {
            return Response.error(403, "actions are disabled on this page: the operator must enable them");
        }
        if (request.user() == null) {
            return Response.error(401, signInPath == null ? "actions need a signed-in user"
                    : "actions need a signed-in user: sign in first");
        }
        if (!csrf.isValid(request.csrfSubject(), request.csrfToken())) {
            log.warn("Admin page: refused a {} from {} ({}) without a valid CSRF token: a request forged by another "
                    + "site, or a page older than the server; reload the page", action, request.user(), request.remote());
            return Response.error(403, "the request carries no valid CSRF token: reload the page and try again");
        }
        String requestedBy = request.user() + " from " + request.remote() + " on the admin page";
        try {
            if (action.equals("clean-up")) {
                return message("Deleted " + admin.cleanUp(requestedBy) + " idle lock records");
            }
            String key = request.parameters().get("key");
            if (key == null) {
                return Response.error(400, "key is missing");
            }
            LockLevel level = level(request.parameters().get("level"));
            if (action.equals("abort")) {
                return admin.abort(key, level, requestedBy)
                        ? message("Abort asked of the holders of '" + key + "'; their nodes stop them at their next poll "
                        + "(a thread is interrupted, a task's work cancelled)")
                        : Response.error(404, "'" + key + "' (" + level + ") is not locked");
            }
            int released = admin.forceRelease(key, level, requestedBy).size();
            return released > 0 ? message("Released " + released + (released == 1 ? " holder" : " holders") + " of '"
                    + key + "'") : Response.error(404, "'" + key + "' (" + level + ") is not locked");
        } catch (IllegalArgumentException e) {
            return Response.error(400, e.getMessage());
        } catch (LockManagerException e) {
            log.warn("Admin page: the {} asked by {} failed in the store; nothing more is tried until asked again: {}",
                    action, requestedBy, e.toString());
            return Response.error(503, "the lock store failed: " + e.getMessage());
        }
    }

    private static LockLevel level(String value) {
        if (value == null) {
            throw new IllegalArgumentException("level is missing");
        }
        try {
            return LockLevel.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("level must be DC or XDC, was '" + value + "'");
        }
    }

    private static Response message(String text) {
        return Response.of(200, JSON, "{\"message\": " + LockJson.quote(text) + "}");
    }

    /** {@code text} safe inside HTML text and quoted attributes. */
    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            switch (ch) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(ch);
            }
        }
        return out.toString();
    }

    static String resource(String name) {
        try (InputStream in = AdminPage.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("the admin page's " + name + " is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
