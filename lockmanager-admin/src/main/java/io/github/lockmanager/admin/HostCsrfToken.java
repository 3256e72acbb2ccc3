package io.github.lockmanager.admin;

import jakarta.servlet.http.HttpServletRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Method;

/**
 * Spring Security's CSRF token of a request, where the application runs Spring Security: its {@code CsrfFilter}
 * refuses every POST without it before the page's servlet sees it, and leaves the token (a {@code CsrfToken}) in a
 * request attribute for pages to send back. Read through the interface by name, so that this module needs no Spring.
 */
final class HostCsrfToken {
    private static final Logger log = LoggerFactory.getLogger(HostCsrfToken.class);
    private static final String SPRING_CSRF_TOKEN = "org.springframework.security.web.csrf.CsrfToken";

    private HostCsrfToken() {
    }

    /** The request's Spring Security CSRF token, or {@code null} where Spring Security left none. */
    static AdminPage.HostCsrf of(HttpServletRequest request) {
        Object token = request.getAttribute(SPRING_CSRF_TOKEN);
        if (token == null) {
            return null;
        }
        try {
            // through the public interface: the object's own class may be private (a deferred token)
            Class<?> type = Class.forName(SPRING_CSRF_TOKEN, false, token.getClass().getClassLoader());
            Method header = type.getMethod("getHeaderName");
            Method value = type.getMethod("getToken");
            return new AdminPage.HostCsrf((String) header.invoke(token), (String) value.invoke(token));
        } catch (ReflectiveOperationException | ClassCastException | LinkageError e) {
            log.warn("Admin page: could not read Spring Security's CSRF token ({}); the page's actions will be refused "
                    + "by its CSRF filter", e.toString());
            return null;
        }
    }
}
