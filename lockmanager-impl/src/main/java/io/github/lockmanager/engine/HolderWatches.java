package io.github.lockmanager.engine;

import io.github.lockmanager.Lock;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockWatch;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Consumer;

/**
 * The manager's watches of who holds a key ({@link io.github.lockmanager.LockManager#watch}): each reads the holders
 * on a task thread, tells its listener when they changed, and reads again at the store's announcement of a release
 * or after its poll interval, whichever comes first. One read at a time per watch; every watch ends at shutdown.
 */
final class HolderWatches {
    private static final Logger log = LoggerFactory.getLogger(HolderWatches.class);

    /** Reads the holders of a key, as {@code inspect} does. */
    @FunctionalInterface
    interface Holders {
        List<Lock> of(String key, LockLevel level) throws LockManagerException;
    }

    private final LockStore store;
    private final TaskThreads tasks;
    private final Holders holders;
    private final Set<Watch> watches = ConcurrentHashMap.newKeySet();

    HolderWatches(LockStore store, TaskThreads tasks, Holders holders) {
        this.store = store;
        this.tasks = tasks;
        this.holders = holders;
    }

    /** A started watch; its first read runs at once on a task thread. */
    LockWatch watch(String key, LockLevel level, LockKey storeKey, Duration pollInterval, Consumer<List<Lock>> listener) {
        Watch watch = new Watch(key, level, storeKey, pollInterval.toNanos(), listener);
        watches.add(watch);
        watch.readSoon();
        return watch;
    }

    /** Ends every watch: what the manager's close does before the task threads stop. */
    void stop() {
        watches.forEach(Watch::close);
    }

    /** What tells a change: the holders' acquisitions, not their leases, which every renewal moves. */
    private static List<String> identities(List<Lock> locks) {
        List<String> ids = new ArrayList<>(locks.size());
        for (Lock lock : locks) {
            ids.add(lock.getOwnerNodeId() + '\u0000' + lock.getHolderThreadName() + '\u0000' + lock.getFencingToken()
                    + '\u0000' + lock.getMode());
        }
        ids.sort(null);
        return ids;
    }

    private final class Watch implements LockWatch {
        private final String key;
        private final LockLevel level;
        private final LockKey storeKey;
        private final long pollNanos;
        private final Consumer<List<Lock>> listener;
        /** Guarded by this. */
        private boolean closed;
        /** A read is queued or running; guarded by this. */
        private boolean reading;
        /** Another read was asked for while one ran; guarded by this. */
        private boolean again;
        /** Guarded by this. */
        private ScheduledFuture<?> nextPoll;
        /** Guarded by this. */
        private Runnable unwatch;
        /** Only the reading thread touches it (one read at a time). */
        private List<String> last;
        private boolean failing;

        Watch(String key, LockLevel level, LockKey storeKey, long pollNanos, Consumer<List<Lock>> listener) {
            this.key = key;
            this.level = level;
            this.storeKey = storeKey;
            this.pollNanos = pollNanos;
            this.listener = listener;
        }

        /** Asks for a read: queued unless one is, remembered if one runs. */
        void readSoon() {
            synchronized (this) {
                if (closed) {
                    return;
                }
                if (reading) {
                    again = true;
                    return;
                }
                reading = true;
            }
            try {
                tasks.execute(this::read);
            } catch (IllegalStateException stopped) {
                close();
            }
        }

        private void read() {
            Runnable cancel;
            synchronized (this) {
                if (closed) {
                    return;
                }
                cancel = unwatch;
                unwatch = null;
                if (nextPoll != null) {
                    nextPoll.cancel(false);
                    nextPoll = null;
                }
            }
            if (cancel != null) {
                cancel.run();
            }
            List<Lock> now = null;
            try {
                now = holders.of(key, level);
                if (failing) {
                    failing = false;
                    log.info("Watch of '{}' ({}) reads its holders again", key, level);
                }
            } catch (LockManagerException | RuntimeException e) {
                if (!failing) {
                    failing = true;
                    log.warn("Watch of '{}' ({}) could not read its holders; reading again every {} ms: {}", key,
                            level, pollNanos / 1_000_000, e.toString());
                }
            }
            if (now != null) {
                List<String> ids = identities(now);
                if (!ids.equals(last)) {
                    last = ids;
                    tell(now);
                }
            }
            Runnable released = null;
            if (now != null && !now.isEmpty()) {
                try {
                    // runs at once if the key was released since the read
                    released = store.watchRelease(storeKey, this::readSoon);
                } catch (LockManagerException | RuntimeException e) {
                    // polled instead
                }
            }
            boolean more;
            synchronized (this) {
                if (closed) {
                    more = false;
                } else {
                    unwatch = released;
                    released = null;
                    try {
                        nextPoll = tasks.schedule(this::readSoon, pollNanos);
                    } catch (IllegalStateException stopped) {
                        closed = true;
                    }
                    more = again && !closed;
                    again = false;
                    reading = false;
                }
            }
            if (released != null) {
                released.run();
            }
            if (more) {
                readSoon();
            }
        }

        private void tell(List<Lock> now) {
            synchronized (this) {
                if (closed) {
                    return;
                }
            }
            try {
                listener.accept(List.copyOf(now));
            } catch (RuntimeException e) {
                log.error("A listener of the watch of '{}' ({}) threw; ignored", key, level, e);
            }
        }

        @Override
        public void close() {
            Runnable cancel;
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
                cancel = unwatch;
                unwatch = null;
                if (nextPoll != null) {
                    nextPoll.cancel(false);
                    nextPoll = null;
                }
            }
            watches.remove(this);
            if (cancel != null) {
                cancel.run();
            }
        }

        @Override
        public String toString() {
            return "watch of '" + key + "' (" + level + ")";
        }
    }
}
