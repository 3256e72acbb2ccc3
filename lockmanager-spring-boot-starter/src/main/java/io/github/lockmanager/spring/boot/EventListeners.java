package io.github.lockmanager.spring.boot;

import io.github.lockmanager.Lock;
import io.github.lockmanager.LockEventListener;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * Tells every {@link LockEventListener} bean (the meters, the health indicator's renewal record, the application's
 * own) each event; one that throws does not keep the event from the others.
 */
final class EventListeners implements LockEventListener {
    private static final Logger log = LoggerFactory.getLogger(EventListeners.class);

    private final List<LockEventListener> listeners;

    private EventListeners(List<LockEventListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    static LockEventListener of(List<LockEventListener> listeners) {
        return listeners.size() == 1 ? listeners.get(0) : new EventListeners(listeners);
    }

    @Override
    public void acquired(Lock lock) {
        tell("acquired", l -> l.acquired(lock));
    }

    @Override
    public void refused(String key, LockLevel level, LockMode mode) {
        tell("refused", l -> l.refused(key, level, mode));
    }

    @Override
    public void released(Lock lock, Duration heldFor) {
        tell("released", l -> l.released(lock, heldFor));
    }

    @Override
    public void renewed(int locks, Duration took) {
        tell("renewed", l -> l.renewed(locks, took));
    }

    @Override
    public void renewalFailed(int locks, Exception cause) {
        tell("renewalFailed", l -> l.renewalFailed(locks, cause));
    }

    @Override
    public void lost(Lock lock, LockLossReason reason) {
        tell("lost", l -> l.lost(lock, reason));
    }

    @Override
    public void aborted(Lock lock) {
        tell("aborted", l -> l.aborted(lock));
    }

    @Override
    public void heldTooLong(Lock lock, Duration heldFor) {
        tell("heldTooLong", l -> l.heldTooLong(lock, heldFor));
    }

    @Override
    public void waited(String key, LockLevel level, LockMode mode, Duration waited, WaitResult result) {
        tell("waited", l -> l.waited(key, level, mode, waited, result));
    }

    private void tell(String event, Consumer<LockEventListener> call) {
        for (LockEventListener listener : listeners) {
            try {
                call.accept(listener);
            } catch (RuntimeException e) {
                log.warn("Lock event listener bean {} failed on '{}'; the other listeners are still told and locking "
                        + "goes on", listener, event, e);
            }
        }
    }

    @Override
    public String toString() {
        return "EventListeners" + listeners;
    }
}
