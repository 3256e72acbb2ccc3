package io.github.lockmanager.engine;

import io.github.lockmanager.spi.LockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The wiring of one manager: makes its parts once, each given only the parts below it (so no cycle), starts the
 * background ones, and stops them all in order at shutdown. The facade ({@code LockEngine}) holds the parts it calls.
 */
final class EngineParts {
    private static final Logger log = LoggerFactory.getLogger(EngineParts.class);

    final EngineSettings settings;
    final LockStore store;
    final AcquisitionTable table = new AcquisitionTable();
    final KeyScope keys;
    final Lifecycle lifecycle;
    final StoreCalls calls;
    final Events events;
    final Releaser releaser;
    final Delivery delivery;
    final HeldTooLong heldTooLong;
    final Acquirer acquirer;
    final LeaseKeeper keeper;
    final CallLeases callLeases;
    final WaitQueue queue;
    final TaskThreads tasks;
    final Waits waits;
    final Requests requests;
    final Deadlocks deadlocks;
    /** What else the facade made that stops with the parts, before the task threads. */
    private final List<Runnable> onStop = new java.util.concurrent.CopyOnWriteArrayList<>();

    EngineParts(EngineSettings settings) {
        this.settings = settings;
        this.store = settings.store();
        this.keys = new KeyScope(settings);
        this.lifecycle = new Lifecycle(settings.nodeId());
        this.calls = StoreCalls.of(store, settings.timeSource());
        this.events = new Events(settings);
        NamedThreadFactory keeperThreads = new NamedThreadFactory("lockmanager-" + settings.nodeId() + "-keeper");
        ScheduledExecutorService keeperThread = Executors.newSingleThreadScheduledExecutor(keeperThreads);
        this.queue = new WaitQueue(table, keeperThread);
        table.watchGone(queue::keyGone);
        HandOffs handOffs = new HandOffs(settings, lifecycle, queue);
        this.releaser = new Releaser(settings, table, calls, events, new Losses(settings, table, calls, events), handOffs,
                keeperThread);
        this.delivery = new Delivery(settings, calls, releaser, events);
        this.heldTooLong = new HeldTooLong(settings, events);
        OwnerTokens tokens = new OwnerTokens();
        this.tasks = new TaskThreads(settings, lifecycle);
        this.requests = new Requests(settings, calls, table, keys, tokens, tasks::execute);
        this.acquirer = new Acquirer(settings, table, keys, lifecycle, calls, releaser, handOffs, heldTooLong, events,
                tokens, requests);
        this.keeper = new LeaseKeeper(settings, table, calls, releaser, delivery, heldTooLong, events, keeperThreads,
                keeperThread, List.of());
        this.deadlocks = new Deadlocks(settings, calls, keys, requests);
        this.callLeases = new CallLeases(settings.leases(), keeper, settings.store());
        this.waits = new Waits(settings, new Parking(settings, queue, requests, events), tasks, events, lifecycle);
    }

    /** Runs {@code stop} at shutdown, after the waits end and before the task threads stop. */
    void onStop(Runnable stop) {
        onStop.add(stop);
    }

    /** Starts the keeper and registers the manager's MBean if asked to. */
    void start(AdminBean adminBean) {
        keeper.start();
        keeper.every(requests.renewalPeriod(), "Renewal of lock requests", requests::keep);
        keeper.every(deadlocks.interval(), "Deadlock detection", deadlocks::look);
        if (settings.registerMBean()) {
            adminBean.register();
        }
        log.info("Lock manager started: node '{}', client '{}', farm '{}', lease {}, renewal every {}, abort poll every {}, store {}",
                settings.nodeId(), settings.clientId(), settings.farmId(), settings.leases().lease(),
                settings.leases().renewalInterval(), settings.leases().abortPollInterval(), settings.store());
    }

    /** Shuts the parts down as {@link io.github.lockmanager.LockManager#close()} says; idempotent. */
    void stop(AdminBean adminBean) {
        if (!lifecycle.beginClose()) {
            return;
        }
        waits.stop();
        onStop.forEach(Runnable::run);
        tasks.stop();
        requests.stop();
        deadlocks.stop();
        List<Acquisition> held = table.held();
        log.info("Closing lock manager of node '{}': {} locks held; interrupting their holders (asking tasks to stop) "
                + "and waiting up to {} for them to unlock", settings.nodeId(), held.size(), settings.shutdownTimeout());
        for (Acquisition acquisition : held) {
            Thread holder = acquisition.holder();
            if (holder != null && holder != Thread.currentThread()) {
                calls.interrupt(holder);
            } else if (holder == null && acquisition.takeAbortDelivery()) {
                acquisition.abortRequested(settings.nodeId());
            }
        }
        boolean interrupted = awaitHolders(held);
        List<Acquisition> released = new ArrayList<>();
        for (Acquisition acquisition : table.held()) {
            if (acquisition.end()) {
                log.debug("Lock {} still held at shutdown of node '{}': releasing it", acquisition, settings.nodeId());
                releaser.release(acquisition, acquisition.confirmedUntilNanos());
                released.add(acquisition);
            }
        }
        if (!released.isEmpty()) {
            log.warn("{} locks were still held when node '{}' shut down (first: {}); their holders did not unlock "
                            + "within {}, so the manager released them", released.size(), settings.nodeId(),
                    released.subList(0, Math.min(3, released.size())), settings.shutdownTimeout());
        }
        keeper.stop();
        adminBean.unregister();
        lifecycle.closed();
        log.info("Lock manager of node '{}' closed", settings.nodeId());
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for the holders to unlock, up to the shutdown timeout; {@code true} if this thread was interrupted. */
    private boolean awaitHolders(List<Acquisition> held) {
        long deadline = System.nanoTime() + settings.shutdownTimeout().toNanos();
        for (Acquisition acquisition : held) {
            if (acquisition.isHeldBy(Thread.currentThread())) {
                continue;
            }
            try {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0 || !acquisition.awaitGone(remaining, TimeUnit.NANOSECONDS)) {
                    return false;
                }
            } catch (InterruptedException e) {
                return true;
            }
        }
        return false;
    }
}
