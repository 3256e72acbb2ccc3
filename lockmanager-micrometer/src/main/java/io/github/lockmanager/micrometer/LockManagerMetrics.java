package io.github.lockmanager.micrometer;

import io.github.lockmanager.Lock;
import io.github.lockmanager.LockEventListener;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.internal.Require;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A lock manager's meters, fed by its events: give it to the manager's builder as its event listener and bind it to
 * a registry.
 *
 * <pre>{@code
 * LockManagerMetrics metrics = new LockManagerMetrics(Tags.of("service", "orders"));
 * LockManager locks = LockManagerBuilder.newBuilder().store(store).eventListener(metrics).build();
 * metrics.bindTo(registry);
 * }</pre>
 *
 * <p>Meters (names as Micrometer's conventions want them; each also carries the tags given here):
 * <ul>
 *   <li>{@code lockmanager.acquisitions} (counter): tags {@code result} ({@code acquired}, {@code refused}),
 *       {@code level}, {@code mode}; re-entries are not acquisitions;</li>
 *   <li>{@code lockmanager.hold} (timer): how long acquisitions were held until released; tags {@code level},
 *       {@code mode};</li>
 *   <li>{@code lockmanager.renewal.batch} (timer): the store call of each renewal batch;
 *       {@code lockmanager.renewal.failures} (counter): batches whose store call failed;</li>
 *   <li>{@code lockmanager.losses} (counter): locks lost while held; tag {@code reason}
 *       ({@code not_owned}, {@code renewal_unconfirmed});</li>
 *   <li>{@code lockmanager.aborts} (counter): aborts that reached a holder of this node;
 *       {@code lockmanager.held.too.long} (counter): holds that outlived the held-too-long threshold;</li>
 *   <li>{@code lockmanager.waits} (timer): blocking waits for a lock ({@code LockManager.waitForLock} and its
 *       siblings) from start to end; tags {@code result} ({@code acquired}, {@code timed_out}, {@code interrupted},
 *       {@code failed}, {@code deadlock}), {@code level}, {@code mode};</li>
 *   <li>{@code lockmanager.locks.held} (gauge): acquisitions held now;</li>
 *   <li>{@code lockmanager.waiters} (gauge): waits for a lock under way now, of threads and tasks: the manager's
 *       queue length.</li>
 * </ul>
 * Events that arrive before {@link #bindTo} are not counted. Thread-safe; one instance per manager.
 */
public final class LockManagerMetrics implements LockEventListener, MeterBinder {
    private final Tags tags;
    private final AtomicLong held = new AtomicLong();
    private final AtomicLong waiting = new AtomicLong();
    private volatile MeterRegistry registry;

    public LockManagerMetrics() {
        this(Tags.empty());
    }

    /** @param tags added to every meter, for example the service or the client id */
    public LockManagerMetrics(Iterable<Tag> tags) {
        this.tags = Tags.of(Require.notNull(tags, "tags"));
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Require.notNull(registry, "registry");
        Gauge.builder("lockmanager.locks.held", held, AtomicLong::get).tags(tags)
                .description("Acquisitions of the lock manager held now").register(registry);
        Gauge.builder("lockmanager.waiters", waiting, AtomicLong::get).tags(tags)
                .description("Waits for a lock under way now, of threads and tasks").register(registry);
        this.registry = registry;
    }

    @Override
    public void acquired(Lock lock) {
        held.incrementAndGet();
        acquisition("acquired", lock.getLevel(), lock.getMode());
    }

    @Override
    public void refused(String key, LockLevel level, LockMode mode) {
        acquisition("refused", level, mode);
    }

    private void acquisition(String result, LockLevel level, LockMode mode) {
        MeterRegistry r = registry;
        if (r != null) {
            Counter.builder("lockmanager.acquisitions").tags(tags).tag("result", result).tags(scope(level, mode))
                    .description("Lock acquisitions asked of the store, by result").register(r).increment();
        }
    }

    @Override
    public void released(Lock lock, Duration heldFor) {
        held.decrementAndGet();
        MeterRegistry r = registry;
        if (r != null) {
            Timer.builder("lockmanager.hold").tags(tags).tags(scope(lock.getLevel(), lock.getMode()))
                    .description("How long locks were held until released").register(r).record(heldFor);
        }
    }

    @Override
    public void renewed(int locks, Duration took) {
        MeterRegistry r = registry;
        if (r != null) {
            Timer.builder("lockmanager.renewal.batch").tags(tags)
                    .description("The store call renewing one batch of held locks").register(r).record(took);
        }
    }

    @Override
    public void renewalFailed(int locks, Exception cause) {
        count("lockmanager.renewal.failures", "Renewal batches whose store call failed", Tags.empty());
    }

    @Override
    public void lost(Lock lock, LockLossReason reason) {
        held.decrementAndGet();
        count("lockmanager.losses", "Locks lost while held, by reason",
                Tags.of("reason", reason.name().toLowerCase(java.util.Locale.ROOT)));
    }

    @Override
    public void aborted(Lock lock) {
        count("lockmanager.aborts", "Aborts that reached a holder of this node", Tags.empty());
    }

    @Override
    public void heldTooLong(Lock lock, Duration heldFor) {
        count("lockmanager.held.too.long", "Holds that outlived the held-too-long threshold", Tags.empty());
    }

    @Override
    public void waitStarted(String key, LockLevel level, LockMode mode) {
        waiting.incrementAndGet();
    }

    @Override
    public void waited(String key, LockLevel level, LockMode mode, Duration waited, WaitResult result) {
        waiting.decrementAndGet();
        MeterRegistry r = registry;
        if (r != null) {
            Timer.builder("lockmanager.waits").tags(tags).tag("result", result.name().toLowerCase(java.util.Locale.ROOT))
                    .tags(scope(level, mode)).description("Blocking waits for a lock, by how they ended").register(r)
                    .record(waited);
        }
    }

    private void count(String name, String description, Tags more) {
        MeterRegistry r = registry;
        if (r != null) {
            Counter.builder(name).tags(tags).tags(more).description(description).register(r).increment();
        }
    }

    private static Tags scope(LockLevel level, LockMode mode) {
        return Tags.of("level", level.name().toLowerCase(java.util.Locale.ROOT), "mode",
                mode.name().toLowerCase(java.util.Locale.ROOT));
    }

    @Override
    public String toString() {
        return "LockManagerMetrics" + tags;
    }
}
