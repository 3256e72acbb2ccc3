package io.github.lockmanager.admin;

import io.github.lockmanager.internal.Require;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.security.Principal;
import java.util.HashMap;
import java.util.Map;

/**
 * The admin page as a Jakarta Servlet (6.0), for a web application to mount under a path of its own, for example
 * {@code /admin/locks/*}: the page itself at that path, {@code locks.json} below it for scripts (same data; filters
 * {@code prefix}, {@code node}, {@code status} as query parameters), and the actions as POSTs below
 * {@code actions/}.
 *
 * <p><b>Security.</b> This servlet signs nobody in: it relies on the container's security (a security constraint,
 * Spring Security, a proxy that authenticates). Viewing needs whatever the application's rules for the path say. Actions
 * (abort, force-release, clean-up) are off unless enabled here; when enabled they need a request with a user
 * principal, in {@code requiredRole} if one is named, a POST, and the page's CSRF token; each is logged with the
 * user's name and address. Protect the whole path with the container: the list shows keys and node names. Under Spring
 * Security's defaults (form login, CSRF protection) the page's actions carry Spring's CSRF token as well, which this
 * servlet reads from the request where Spring leaves it, so no exception for the path is needed.
 *
 * <p>Thread-safe, as a servlet must be. Register it programmatically ({@code ServletContext.addServlet},
 * Spring Boot's {@code ServletRegistrationBean}) with the {@link LockAdmin} it shows.
 */
public class LockAdminServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private final transient AdminPage page;
    private final String requiredRole;

    /** A read-only page: the list, its filters and the JSON; no actions. */
    public LockAdminServlet(LockAdmin admin) {
        this(admin, false, null);
    }

    /**
     * @param actionsEnabled whether signed-in users may abort, force-release and clean up
     * @param requiredRole   the role a user needs to act ({@link HttpServletRequest#isUserInRole}); {@code null}: any
     *                       authenticated user
     */
    public LockAdminServlet(LockAdmin admin, boolean actionsEnabled, String requiredRole) {
        Require.notNull(admin, "admin");
        Require.argument(requiredRole == null || !requiredRole.isBlank(), "requiredRole must not be blank");
        this.page = new AdminPage(admin, actionsEnabled, null);
        this.requiredRole = requiredRole;
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getPathInfo();
        if (path == null) {
            // mounted at /admin/locks/* and asked for /admin/locks: the page's relative links need the slash
            response.sendRedirect(request.getRequestURI() + "/");
            return;
        }
        Map<String, String> parameters = new HashMap<>();
        request.getParameterMap().forEach((name, values) -> parameters.put(name, values[0]));
        Principal principal = request.getUserPrincipal();
        String user = principal != null && (requiredRole == null || request.isUserInRole(requiredRole))
                ? principal.getName() : null;
        AdminPage.Response answer = page.handle(new AdminPage.Request(request.getMethod(), path, parameters, user,
                user, request.getHeader(AdminPage.CSRF_HEADER), request.getRemoteAddr(), HostCsrfToken.of(request)));
        response.setStatus(answer.status());
        AdminPage.SECURITY_HEADERS.forEach(response::setHeader);
        response.setContentType(answer.contentType());
        response.setContentLength(answer.body().length);
        if (!request.getMethod().equals("HEAD")) {
            response.getOutputStream().write(answer.body());
        }
    }
}
