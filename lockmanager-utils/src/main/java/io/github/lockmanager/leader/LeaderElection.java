package io.github.lockmanager.leader;

import io.github.lockmanager.Lock;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockSpec;
import io.github.lockmanager.LockWatch;
import io.github.lockmanager.TaskLock;
import io.github.lockmanager.TaskLockListener;
import io.github.lockmanager.TaskOptions;
import io.github.lockmanager.internal.Require;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A member of the election of one leader among the members of a name, on any store: the leader holds the name's lock
 * as a task ({@link LockManager#lockForTaskAsync}), so no thread is held while it leads or waits, and each term's
 * number is that lock's fencing token, which only grows.
 *
 * <pre>{@code
 * LeaderElection election = LeaderElection.builder(lockManager, "billing-scheduler")
 *         .listener(new LeadershipListener() {
 *             public void elected(Term term) { scheduler.start(term); }
 *             public void revoked(Term term, LockLossReason reason) { scheduler.stop(); }
 *         })
 *         .build();
 * election.start();
 * }</pre>
 *
 * <p>A member waits for the lock while another leads, woken by its release where the store announces releases, else
 * polling up to the manager's wait poll interval; when the leader's node dies, its lock ends with its lease and a
 * waiting member is elected. The leader's term is {@linkplain LeadershipListener#revoked revoked} before another
 * member can lead: when it {@linkplain #yieldLeadership yields}, when an abort of the name is asked on any node
 * ({@link LockManager#abort}), when this election is closed, and when the manager finds the lease may end (a store it
 * cannot reach). After a yield or an abort the member waits {@code rejoinDelay} before it asks again, so that another
 * member leads; after a store failure while asking, too.
 *
 * <p>Thread rules: every method may be called from any thread. Listeners run on the election's own thread
 * ({@code lockmanager-leader-<name>}), stopped by {@link #close()}.
 */
public final class LeaderElection implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LeaderElection.class);
    private static final Duration FOREVER = ChronoUnit.FOREVER.getDuration();

    private final LockManager manager;
    private final String name;
    private final String member;
    private final LockSpec spec;
    private final LeadershipListener listener;
    private final Duration rejoinDelay;
    private final ScheduledExecutorService thread;
    private final Object state = new Object();
    /** Guarded by {@link #state}. */
    private boolean started;
    /** Guarded by {@link #state}. */
    private boolean closed;
    /** The wait under way, or {@code null}; guarded by {@link #state}. */
    private CompletableFuture<TaskLock> asking;
    /** Whether the last ask failed for the store: its warning is logged once per outage. Only the answering thread. */
    private volatile boolean failing;
    /** The term while this member leads; set under {@link #state}. */
    private volatile Term term;

    private LeaderElection(Builder builder) {
        this.manager = builder.manager;
        this.name = builder.name;
        this.member = builder.member != null ? builder.member : manager.getNodeId();
        LockSpec of = LockSpec.of(name).at(builder.level != null ? builder.level : manager.getDefaultLevel());
        this.spec = builder.lease != null ? of.lease(builder.lease) : of;
        this.listener = builder.listener;
        this.rejoinDelay = builder.rejoinDelay;
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "lockmanager-leader-" + name);
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.thread = executor;
    }

    /**
     * A member of the election of {@code name} (a lock key) on {@code manager}.
     *
     * @throws IllegalArgumentException if {@code manager} is null, or {@code name} is not a valid lock key
     */
    public static Builder builder(LockManager manager, String name) {
        return new Builder(manager, name);
    }

    /**
     * Who leads {@code name} at {@code level}, as the store says now, without joining: empty while no member leads.
     * One store call.
     *
     * @throws LockManagerException if the store failed
     */
    public static Optional<Leader> leaderOf(LockManager manager, String name, LockLevel level)
            throws LockManagerException {
        List<Lock> holders = Require.notNull(manager, "manager").inspect(name, Require.notNull(level, "level"));
        return holders.stream().findFirst().map(Leader::of);
    }

    /**
     * Watches who leads {@code name} at {@code level} without joining: {@code listener} is told at once and at each
     * change (a new term, or nobody leading), as {@link LockManager#watch} tells a key's holders: at the store's
     * announcement of a release (PostgreSQL, Redis) and every {@code pollInterval}. Close the watch to stop it.
     *
     * @throws IllegalArgumentException if an argument is null or out of range
     * @throws IllegalStateException    if the manager is closed
     */
    public static LockWatch watchLeader(LockManager manager, String name, LockLevel level, Duration pollInterval,
                                        Consumer<Optional<Leader>> listener) {
        Require.notNull(listener, "listener");
        return Require.notNull(manager, "manager").watch(name, level, pollInterval,
                holders -> listener.accept(holders.stream().findFirst().map(Leader::of)));
    }

    /**
     * Joins the election: this member asks to lead, and waits while another does. Once only.
     *
     * @throws IllegalStateException if started before, or closed
     */
    public void start() {
        synchronized (state) {
            if (closed || started) {
                throw new IllegalStateException("leader election '" + name + "' " + (closed ? "is closed"
                        : "was started already"));
            }
            started = true;
        }
        ask();
    }

    /** Whether this member leads now: its term is current (see {@link Term#isCurrent()}). */
    public boolean isLeader() {
        Term current = term;
        return current != null && current.isCurrent();
    }

    /** This member's current term, while it leads. */
    public Optional<Term> term() {
        Term current = term;
        return current != null && current.isCurrent() ? Optional.of(current) : Optional.empty();
    }

    /** The election's name. */
    public String name() {
        return name;
    }

    /** This member's name. */
    public String member() {
        return member;
    }

    /**
     * Gives up leading: the term is revoked, then its lock given back, and this member asks again after
     * {@code rejoinDelay}. Does nothing while it does not lead.
     */
    public void yieldLeadership() {
        Term current = term;
        if (current != null) {
            end(current, null, true);
        }
    }

    /**
     * Leaves the election: a wait under way ends, a term is revoked and its lock given back, and the election's thread
     * stops once the listeners told are done. Idempotent.
     */
    @Override
    public void close() {
        CompletableFuture<TaskLock> pending;
        Term current;
        synchronized (state) {
            if (closed) {
                return;
            }
            closed = true;
            pending = asking;
            asking = null;
            current = term;
        }
        if (pending != null) {
            // a lock granted at the same moment is released by the manager
            pending.cancel(false);
        }
        if (current != null) {
            end(current, null, false);
        }
        thread.shutdown();
        if (!Thread.currentThread().getName().equals("lockmanager-leader-" + name)) {
            try {
                // the revocation told and the lock given back before close returns, unless a listener hangs
                if (!thread.awaitTermination(10, TimeUnit.SECONDS)) {
                    log.warn("Leader election '{}' (member '{}') closed while a listener still ran", name, member);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void ask() {
        if (isClosed()) {
            return;
        }
        CompletableFuture<TaskLock> waiting;
        try {
            waiting = manager.lockForTaskAsync(spec, FOREVER, TaskOptions.named(member).listener(new Told()))
                    .toCompletableFuture();
        } catch (IllegalStateException managerClosed) {
            log.warn("Leader election '{}' (member '{}') stops asking: {}", name, member, managerClosed.getMessage());
            return;
        }
        boolean closedMeanwhile;
        synchronized (state) {
            closedMeanwhile = closed;
            if (!closedMeanwhile) {
                asking = waiting;
            }
        }
        if (closedMeanwhile) {
            // a lock granted at the same moment is released by the manager
            waiting.cancel(false);
            return;
        }
        waiting.whenComplete(this::answered);
    }

    private void answered(TaskLock lock, Throwable failure) {
        synchronized (state) {
            asking = null;
        }
        if (failure != null) {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            if (isClosed() || cause instanceof java.util.concurrent.CancellationException) {
                return;
            }
            if (cause instanceof IllegalStateException) {
                log.warn("Leader election '{}' (member '{}') stops asking: {}", name, member, cause.getMessage());
                return;
            }
            // once per outage: the member asks again every rejoinDelay for as long as the store fails
            if (!failing) {
                failing = true;
                log.warn("Leader election '{}' (member '{}') could not ask to lead; asking again every {} ms until "
                        + "the store answers: {}", name, member, rejoinDelay.toMillis(), cause.toString());
            } else {
                log.debug("Leader election '{}' (member '{}') still cannot ask to lead: {}", name, member,
                        cause.toString());
            }
            later(this::ask, rejoinDelay);
            return;
        }
        Term elected = new Term(name, member, lock, Instant.now());
        boolean closedMeanwhile;
        synchronized (state) {
            // under the monitor: a close from now on sees the term and ends it
            closedMeanwhile = closed;
            if (!closedMeanwhile) {
                term = elected;
            }
        }
        if (closedMeanwhile) {
            lock.close();
            return;
        }
        failing = false;
        log.info("Member '{}' of node '{}' leads '{}' in term {}", member, manager.getNodeId(), name,
                elected.number());
        deliver(() -> listener.elected(elected));
        lock.whenEnded().whenComplete((reason, ignored) -> {
            // released by the manager's shutdown, or lost: a term not yet ended here ends now
            end(elected, reason, false);
            if (reason != null) {
                later(this::ask, Duration.ZERO);
            }
        });
    }

    /**
     * Ends {@code ended} once: the listener is told (on the election's thread, before the lock is given back), then
     * the lock is released unless lost; with {@code rejoin}, the member asks again after {@code rejoinDelay}.
     */
    private void end(Term ended, LockLossReason reason, boolean rejoin) {
        if (!ended.revoke()) {
            return;
        }
        synchronized (state) {
            if (term == ended) {
                term = null;
            }
        }
        log.info("Member '{}' of node '{}' no longer leads '{}' (term {}): {}", member, manager.getNodeId(), name,
                ended.number(), reason == null ? "given up" : "lost, " + reason);
        Runnable tell = () -> listener.revoked(ended, reason);
        Runnable release = () -> {
            if (reason == null) {
                ended.lock().close();
            }
            if (rejoin) {
                later(this::ask, rejoinDelay);
            }
        };
        try {
            thread.execute(() -> {
                safely(tell);
                release.run();
            });
        } catch (RejectedExecutionException closing) {
            // the election closed meanwhile: tell and release here
            safely(tell);
            release.run();
        }
    }

    private void deliver(Runnable callback) {
        try {
            thread.execute(() -> safely(callback));
        } catch (RejectedExecutionException closing) {
            // closed: the term's revocation is told by close itself
        }
    }

    private void safely(Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            log.error("A listener of leader election '{}' (member '{}') threw; ignored", name, member, e);
        }
    }

    private void later(Runnable action, Duration delay) {
        if (isClosed()) {
            return;
        }
        try {
            thread.schedule(action, delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            // closed meanwhile
        }
    }

    private boolean isClosed() {
        synchronized (state) {
            return closed;
        }
    }

    /** What the manager tells of the term's lock: an abort gives the term up, a loss ends it. */
    private final class Told implements TaskLockListener {
        @Override
        public void abortRequested(Lock lock) {
            Term current = term;
            if (current != null && current.lock().getFencingToken() == lock.getFencingToken()) {
                log.info("An abort of '{}' was asked: member '{}' gives up term {}", name, member, current.number());
                end(current, null, true);
            }
        }

        @Override
        public void lost(Lock lock, LockLossReason reason) {
            Term current = term;
            if (current != null && current.lock().getFencingToken() == lock.getFencingToken()) {
                end(current, reason, false);
            }
        }
    }

    /** Settings of a {@link LeaderElection}; each setter checks its value. Not thread-safe. */
    public static final class Builder {
        private final LockManager manager;
        private final String name;
        private String member;
        private LockLevel level;
        private Duration lease;
        private LeadershipListener listener = new LeadershipListener() {
        };
        private Duration rejoinDelay = Duration.ofSeconds(1);

        private Builder(LockManager manager, String name) {
            this.manager = Require.notNull(manager, "manager");
            LockSpec.of(name);
            this.name = name;
        }

        /**
         * This member's name, shown as the leader's holder ({@code task:<member>}); the node id by default.
         *
         * @throws IllegalArgumentException if it is not a valid task name ({@link TaskOptions#named})
         */
        public Builder member(String member) {
            TaskOptions.named(member);
            this.member = member;
            return this;
        }

        /** The level of the name's lock; the manager's default level by default. */
        public Builder level(LockLevel level) {
            this.level = Require.notNull(level, "level");
            return this;
        }

        /**
         * The lease of a term's lock: how long after a leader's node dies another member is elected, at most; the
         * manager's lease by default.
         *
         * @throws IllegalArgumentException as {@link LockSpec#lease} does
         */
        public Builder lease(Duration lease) {
            LockSpec.of(name).lease(lease);
            this.lease = lease;
            return this;
        }

        /** Who is told of terms; nobody by default. */
        public Builder listener(LeadershipListener listener) {
            this.listener = Require.notNull(listener, "listener");
            return this;
        }

        /**
         * How long a member waits before it asks again after a yield, an abort, or a store failure while asking: 1 s
         * by default, from 0 to 1 hour.
         */
        public Builder rejoinDelay(Duration rejoinDelay) {
            Require.argument(rejoinDelay != null && !rejoinDelay.isNegative()
                    && rejoinDelay.compareTo(Duration.ofHours(1)) <= 0,
                    "rejoinDelay must be from 0 to 1 hour, was %s", rejoinDelay);
            this.rejoinDelay = rejoinDelay;
            return this;
        }

        /** The election, not started: {@link LeaderElection#start()} joins it. */
        public LeaderElection build() {
            return new LeaderElection(this);
        }
    }
}
