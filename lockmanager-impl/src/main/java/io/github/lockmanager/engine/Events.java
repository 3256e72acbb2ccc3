package io.github.lockmanager.engine;

import io.github.lockmanager.LockEventListener;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.TimeSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * The manager's {@link LockEventListener}, behind one check: without a listener no event object is made and no
 * clock read, so the lock and unlock paths pay a predictable branch and nothing else. A listener that throws is logged, never felt.
 */
final class Events {
    private static final Logger log = LoggerFactory.getLogger(Events.class);

    private final String nodeId;
    private final TimeSource time;
    private final LockEventListener listener;
    private final boolean on;
    /**
     * The key a thread of this manager has just waited for a release of, between two tries of one blocking wait: its
     * next refusal of that key is the same wait's, not one of its own. Set only while someone listens.
     */
    private final ThreadLocal<String> waitingFor = new ThreadLocal<>();

    Events(EngineSettings settings) {
        this.nodeId = settings.nodeId();
        this.time = settings.timeSource();
        this.listener = settings.eventListener();
        this.on = listener != LockEventListener.NONE;
    }

    void acquired(Acquisition acquisition) {
        if (on) {
            tell("acquired", l -> l.acquired(acquisition.grantedLock(nodeId)));
        }
    }

    void refused(String key, LockLevel level, LockMode mode) {
        if (on && !triedAgain(key, level)) {
            tell("refused", l -> l.refused(key, level, mode));
        }
    }

    /** The calling thread waits for a release of {@code key}: its next refusal of the key is the same wait's. */
    void waitingFor(String key, LockLevel level) {
        if (on) {
            waitingFor.set(level.name() + '#' + key);
        }
    }

    /** A try that {@link #waitingFor} announced is over, refused or not: the calling thread may try other keys next. */
    void triedOnce() {
        if (on) {
            waitingFor.remove();
        }
    }

    /** Whether this refusal follows a wait for the same key on this thread; forgets the wait either way. */
    private boolean triedAgain(String key, LockLevel level) {
        String waited = waitingFor.get();
        if (waited == null) {
            return false;
        }
        waitingFor.remove();
        return waited.equals(level.name() + '#' + key);
    }

    /**
     * {@code acquisition} ended by its release, now: the clock is read only when someone listens. One that was never
     * granted (its answer came too late to use) was never {@link #acquired} either, and is no event.
     */
    void released(Acquisition acquisition) {
        if (on && acquisition.wasGranted()) {
            long heldNanos = time.nanoTime() - acquisition.grantedAtNanos();
            tell("released", l -> l.released(acquisition.grantedLock(nodeId), Duration.ofNanos(heldNanos)));
        }
    }

    void renewed(int locks, long tookNanos) {
        if (on) {
            tell("renewed", l -> l.renewed(locks, Duration.ofNanos(tookNanos)));
        }
    }

    void renewalFailed(int locks, Exception cause) {
        if (on) {
            tell("renewalFailed", l -> l.renewalFailed(locks, cause));
        }
    }

    void lost(Acquisition acquisition, LockLossReason reason) {
        if (on) {
            tell("lost", l -> l.lost(acquisition.grantedLock(nodeId), reason));
        }
    }

    void aborted(Acquisition acquisition) {
        if (on) {
            tell("aborted", l -> l.aborted(acquisition.grantedLock(nodeId)));
        }
    }

    void heldTooLong(Acquisition acquisition, long heldNanos) {
        if (on) {
            tell("heldTooLong", l -> l.heldTooLong(acquisition.grantedLock(nodeId), Duration.ofNanos(heldNanos)));
        }
    }

    void waitStarted(String key, LockLevel level, LockMode mode) {
        if (on) {
            tell("waitStarted", l -> l.waitStarted(key, level, mode));
        }
    }

    void waited(String key, LockLevel level, LockMode mode, Duration waited, LockEventListener.WaitResult result) {
        if (on) {
            waitingFor.remove();
            tell("waited", l -> l.waited(key, level, mode, waited, result));
        }
    }

    private void tell(String event, Consumer<LockEventListener> call) {
        try {
            call.accept(listener);
        } catch (RuntimeException e) {
            log.warn("Lock event listener {} of node '{}' failed on '{}'; locking goes on", listener, nodeId, event, e);
        }
    }
}
