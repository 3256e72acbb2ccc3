package io.github.lockmanager.spring.boot;

import io.github.lockmanager.Lock;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.lang.Nullable;

import java.util.List;
import java.util.Locale;

/**
 * The {@code locks} Actuator endpoint: {@code GET /actuator/locks} lists every live lock of this application's
 * client id held by any node, {@code GET /actuator/locks/{key}} one key's holders and
 * {@code POST /actuator/locks/{key}} asks them to abort (their threads are interrupted), each with an optional
 * {@code level} ({@code DC} or {@code XDC}; default: the manager's). Keys with {@code /} are written as they are.
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

    /** One holder of a lock, as the endpoint shows it. */
    public record LockView(String key, String level, String mode, String node, String thread, String lockedAt,
                           String expiresAt, String status, long fencingToken) {
        static LockView of(Lock lock) {
            return new LockView(lock.getKey(), lock.getLevel().name(), lock.getMode().name(), lock.getOwnerNodeId(),
                    lock.getHolderThreadName(), String.valueOf(lock.getLockTime()),
                    String.valueOf(lock.getExpirationTime()), lock.getStatus().name(), lock.getFencingToken());
        }
    }

    @ReadOperation
    public List<LockView> locks() throws LockManagerException {
        return manager.getLocks().stream().map(LockView::of).toList();
    }

    @ReadOperation
    public List<LockView> lock(@Selector(match = Selector.Match.ALL_REMAINING) String[] key, @Nullable String level)
            throws LockManagerException {
        String name = String.join("/", key);
        return inspect(name, level(level));
    }

    @WriteOperation
    public List<LockView> abort(@Selector(match = Selector.Match.ALL_REMAINING) String[] key, @Nullable String level)
            throws LockManagerException {
        String name = String.join("/", key);
        LockLevel at = level(level);
        try {
            manager.abort(name, at);
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException(e.getMessage(), e.getMessage());
        }
        log.info("Abort of lock '{}' at {} asked through the Actuator endpoint on node '{}'", name, at,
                manager.getNodeId());
        return inspect(name, at);
    }

    private List<LockView> inspect(String key, LockLevel level) throws LockManagerException {
        try {
            return manager.inspect(key, level).stream().map(LockView::of).toList();
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException(e.getMessage(), e.getMessage());
        }
    }

    private LockLevel level(String level) {
        if (level == null || level.isEmpty()) {
            return manager.getDefaultLevel();
        }
        try {
            return LockLevel.valueOf(level.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            String reason = "level must be DC or XDC, was '" + level + "'";
            throw new InvalidEndpointRequestException(reason, reason);
        }
    }
}
