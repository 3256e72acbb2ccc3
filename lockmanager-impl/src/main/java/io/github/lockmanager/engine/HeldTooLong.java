package io.github.lockmanager.engine;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Reports acquisitions held longer than the manager's threshold: once when a hold outlives it (a warning with the
 * stack where the lock was taken), once when it finally ends (an info line). The stacks sit in a map beside the
 * table, filled only when a threshold is set, so that locks cost nothing more without one. Checked by the keeper
 * thread each tick.
 */
final class HeldTooLong {
    private static final Logger log = LoggerFactory.getLogger(HeldTooLong.class);

    /**
     * Where a lock was taken, and whether its warning was given. The message is made only when printed: most holds
     * end long before the threshold.
     */
    private static final class Origin extends Throwable {
        private static final long serialVersionUID = 1L;
        private final transient Acquisition acquisition;
        private boolean warned;

        Origin(Acquisition acquisition) {
            // the JVM's own capture: a StackWalker keeping only the caller's frames measured 3 to 4 times slower
            this.acquisition = acquisition;
        }

        @Override
        public String getMessage() {
            return "lock " + acquisition + " was taken here";
        }
    }

    private final String nodeId;
    private final Duration threshold;
    private final Map<Acquisition, Origin> origins = new ConcurrentHashMap<>();
    private final Events events;

    HeldTooLong(EngineSettings settings, Events events) {
        this.events = events;
        this.nodeId = settings.nodeId();
        this.threshold = settings.heldTooLong();
    }

    /** Notes where {@code acquisition}, just granted, was taken: on the taking thread, whose stack it is. */
    void taken(Acquisition acquisition) {
        if (!threshold.isZero()) {
            origins.put(acquisition, new Origin(acquisition));
        }
    }

    /** Whether {@code acquisition} has been held longer than the threshold at {@code nowNanos}. */
    boolean isHeldTooLong(Acquisition acquisition, long nowNanos) {
        return !threshold.isZero() && nowNanos - acquisition.grantedAtNanos() > threshold.toNanos();
    }

    /** Warns of holds that have just outlived the threshold, and reports the end of those warned of. */
    void check(long nowNanos) {
        for (Iterator<Map.Entry<Acquisition, Origin>> it = origins.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Acquisition, Origin> entry = it.next();
            Acquisition acquisition = entry.getKey();
            Origin origin = entry.getValue();
            long heldMillis = TimeUnit.NANOSECONDS.toMillis(nowNanos - acquisition.grantedAtNanos());
            if (acquisition.isReleasing()) {
                // guarded work is giving back its last hold and may yet keep it: decided at a later check
                continue;
            }
            if (!acquisition.isHeld()) {
                it.remove();
                if (origin.warned) {
                    log.info("Lock {} on node '{}', reported as held too long, has ended after about {} ms", acquisition,
                            nodeId, heldMillis);
                }
            } else if (!origin.warned && isHeldTooLong(acquisition, nowNanos)) {
                origin.warned = true;
                log.warn("Lock {} on node '{}' has been held for {} ms, longer than the threshold of {} ms: is its "
                                + "holder stuck, or did it forget to unlock? The stack below shows where it was taken",
                        acquisition, nodeId, heldMillis, threshold.toMillis(), origin);
                events.heldTooLong(acquisition, nowNanos - acquisition.grantedAtNanos());
            }
        }
    }
}
