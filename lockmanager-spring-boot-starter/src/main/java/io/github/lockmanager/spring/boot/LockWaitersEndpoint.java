package io.github.lockmanager.spring.boot;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockWaiter;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

import java.util.List;

/**
 * The {@code lockwaiters} Actuator endpoint: {@code GET /actuator/lockwaiters} lists who waits in turn for which lock
 * of this application's client id, on any node, per key first in line first ({@link LockManager#getWaiters()}: the
 * requests that fair waits register). Read-only.
 */
@Endpoint(id = "lockwaiters")
public class LockWaitersEndpoint {
    private final LockManager manager;

    public LockWaitersEndpoint(LockManager manager) {
        this.manager = manager;
    }

    /** One waiter's request, as the endpoint shows it; {@code place} counts from 1 within its key's line. */
    public record WaiterView(String key, String level, String mode, int permits, String node, String owner,
                             String since, String expiresAt, int place) {
    }

    @ReadOperation
    public List<WaiterView> waiters() throws LockManagerException {
        List<LockWaiter> waiters = manager.getWaiters();
        List<WaiterView> views = new java.util.ArrayList<>(waiters.size());
        String lastKey = null;
        int place = 0;
        for (LockWaiter w : waiters) {
            String lineKey = w.level() + "#" + w.key();
            place = lineKey.equals(lastKey) ? place + 1 : 1;
            lastKey = lineKey;
            views.add(new WaiterView(w.key(), w.level().name(), w.mode().name(), w.permits(), w.nodeId(),
                    w.ownerName(), String.valueOf(w.since()), String.valueOf(w.expirationTime()), place));
        }
        return views;
    }
}
