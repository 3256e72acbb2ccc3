package io.github.lockmanager.spring.boot;

import io.github.lockmanager.Lock;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.lang.Nullable;
import org.springframework.util.ClassUtils;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code locks} Actuator endpoint: {@code GET /actuator/locks} lists every live lock of this application's
 * client id held by any node, {@code GET /actuator/locks/{key}} one key's holders and
 * {@code POST /actuator/locks/{key}} asks them to abort (a holder thread is interrupted, a task's work cancelled), each with an optional query
 * parameter {@code level} ({@code DC} or {@code XDC}, any case; default: the manager's). A POST needs no body, so
 * {@code curl -X POST .../actuator/locks/order-1?level=XDC} does it. Keys with {@code /} are written as they are. A
 * request Actuator refuses (an unknown level, a key the manager refuses) answers 400 with the reason in its body.
 *
 * <p>Abort changes what runs on other nodes: expose this endpoint over the web only behind the application's
 * security ({@code management.endpoints.web.exposure.include=locks}). Each abort is logged with the key.
 */
@Endpoint(id = "locks")
public class LocksEndpoint {
    private static final Logger log = LoggerFactory.getLogger(LocksEndpoint.class);

    private final LockManager manager;

    public LocksEndpoint(LockManager manager) {
        this.manager = manager;
    }

    /** One holder of a lock, as the endpoint shows it; {@code permits} is a permit holder's number, else 0. */
    public record LockView(String key, String level, String mode, String node, String thread, String lockedAt,
                           String expiresAt, String status, long fencingToken, int permits) {
        static LockView of(Lock lock) {
            return new LockView(lock.getKey(), lock.getLevel().name(), lock.getMode().name(), lock.getOwnerNodeId(),
                    lock.getHolderThreadName(), String.valueOf(lock.getLockTime()),
                    String.valueOf(lock.getExpirationTime()), lock.getStatus().name(), lock.getFencingToken(),
                    lock.getPermits());
        }
    }

    @ReadOperation
    public List<LockView> locks() throws LockManagerException {
        return manager.getLocks().stream().map(LockView::of).toList();
    }

    /** The key's holders; an unknown level or a key the manager refuses: 400, the reason in the body. */
    @ReadOperation
    public WebEndpointResponse<Object> lock(@Selector(match = Selector.Match.ALL_REMAINING) String[] key,
                                            @Nullable String level) throws LockManagerException {
        String name = String.join("/", key);
        try {
            return new WebEndpointResponse<>(inspect(name, level(level)));
        } catch (IllegalArgumentException e) {
            return badRequest(e);
        }
    }

    /**
     * Takes only the key, so that Actuator asks for no request body; the level comes from the web request's query
     * (JMX, which has none, aborts at the manager's level).
     */
    @WriteOperation
    public WebEndpointResponse<Object> abort(@Selector(match = Selector.Match.ALL_REMAINING) String[] key)
            throws LockManagerException {
        String name = String.join("/", key);
        try {
            LockLevel at = level(WebQuery.parameter("level"));
            manager.abort(name, at);
            log.info("Abort of lock '{}' at {} asked through the Actuator endpoint on node '{}'", name, at,
                    manager.getNodeId());
            return new WebEndpointResponse<>(inspect(name, at));
        } catch (IllegalArgumentException e) {
            return badRequest(e);
        }
    }

    private List<LockView> inspect(String key, LockLevel level) throws LockManagerException {
        return manager.inspect(key, level).stream().map(LockView::of).toList();
    }

    /** Actuator shows no reason for a refused request unless the application says so: this body always does. */
    private static WebEndpointResponse<Object> badRequest(IllegalArgumentException e) {
        return new WebEndpointResponse<>(Map.of("status", 400, "error", e.getMessage()),
                WebEndpointResponse.STATUS_BAD_REQUEST);
    }

    private LockLevel level(String level) {
        if (level == null || level.isEmpty()) {
            return manager.getDefaultLevel();
        }
        try {
            return LockLevel.valueOf(level.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("level must be DC or XDC, was '" + level + "'");
        }
    }

    /** A query parameter of the web request being served, where Spring MVC serves one; {@code null} otherwise. */
    private static final class WebQuery {
        private static final boolean SERVLET = ClassUtils.isPresent(
                "org.springframework.web.context.request.RequestContextHolder", LocksEndpoint.class.getClassLoader())
                && ClassUtils.isPresent("jakarta.servlet.http.HttpServletRequest", LocksEndpoint.class.getClassLoader());

        static String parameter(String name) {
            return SERVLET ? ServletQuery.parameter(name) : null;
        }
    }

    /** Loaded only where Spring MVC's classes are. */
    private static final class ServletQuery {
        static String parameter(String name) {
            return RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes servlet
                    ? servlet.getRequest().getParameter(name) : null;
        }
    }
}
