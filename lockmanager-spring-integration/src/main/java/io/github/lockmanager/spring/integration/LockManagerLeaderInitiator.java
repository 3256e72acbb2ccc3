package io.github.lockmanager.spring.integration;

import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.leader.LeaderElection;
import io.github.lockmanager.leader.LeadershipListener;
import io.github.lockmanager.leader.Term;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.LeaderEventPublisher;

import java.time.Duration;
import java.util.Optional;

/**
 * Spring Integration's leadership contract ({@link Candidate}, {@link Context}, the {@code OnGrantedEvent} and
 * {@code OnRevokedEvent} of a {@link LeaderEventPublisher}) on a lockmanager {@link LeaderElection}: the candidate's
 * role is the election's name, its id the member's name. Unlike {@code LockRegistryLeaderInitiator}, no thread is held
 * while leading or waiting, each grant carries a fenced term ({@link TermContext#term()}), and the revocation reaches
 * the candidate before another member can lead.
 *
 * <p>A {@link SmartLifecycle}: started with the application context (unless {@code autoStartup} is off), stopped
 * before it closes, in the same late phase as Spring Integration's own initiators. {@link Candidate#onGranted} and
 * {@link Candidate#onRevoked} run on the election's thread, then the event is published. Thread-safe.
 */
public final class LockManagerLeaderInitiator implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(LockManagerLeaderInitiator.class);

    private final LockManager manager;
    private final Candidate candidate;
    private final TermContext context = new TermContext();
    private volatile LeaderEventPublisher publisher;
    private volatile LockLevel level;
    private volatile Duration rejoinDelay = Duration.ofSeconds(1);
    private volatile boolean autoStartup = true;
    private volatile int phase = Integer.MAX_VALUE - 1000;
    private LeaderElection election;

    /** @throws IllegalArgumentException if an argument is null, or the candidate's role is not a valid lock key */
    public LockManagerLeaderInitiator(LockManager manager, Candidate candidate) {
        this.manager = Require.notNull(manager, "manager");
        this.candidate = Require.notNull(candidate, "candidate");
        LeaderElection.builder(manager, candidate.getRole()).member(candidate.getId());
    }

    /** Where the granted and revoked events go; none by default. */
    public void setLeaderEventPublisher(LeaderEventPublisher publisher) {
        this.publisher = publisher;
    }

    /** The level of the role's lock; the manager's default level by default. */
    public void setLevel(LockLevel level) {
        this.level = Require.notNull(level, "level");
    }

    /** See {@link LeaderElection.Builder#rejoinDelay}; 1 s by default. */
    public void setRejoinDelay(Duration rejoinDelay) {
        LeaderElection.builder(manager, candidate.getRole()).rejoinDelay(rejoinDelay);
        this.rejoinDelay = rejoinDelay;
    }

    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    public void setPhase(int phase) {
        this.phase = phase;
    }

    /** What the candidate is given: whether it leads, a way to yield, and its term. */
    public TermContext getContext() {
        return context;
    }

    public Candidate getCandidate() {
        return candidate;
    }

    /** The level of the role's lock: the one set, else the manager's default level. */
    public LockLevel getLevel() {
        LockLevel set = level;
        return set != null ? set : manager.getDefaultLevel();
    }

    @Override
    public synchronized void start() {
        if (election != null) {
            return;
        }
        LeaderElection.Builder builder = LeaderElection.builder(manager, candidate.getRole())
                .member(candidate.getId()).rejoinDelay(rejoinDelay).listener(new Listener());
        if (level != null) {
            builder.level(level);
        }
        election = builder.build();
        election.start();
    }

    /** Leaves the election: a term is revoked (the candidate told) before the lock is given back. */
    @Override
    public void stop() {
        LeaderElection running;
        synchronized (this) {
            running = election;
            election = null;
        }
        if (running != null) {
            running.close();
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return election != null;
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    @Override
    public int getPhase() {
        return phase;
    }

    private synchronized LeaderElection election() {
        return election;
    }

    /** The candidate's {@link Context}, with its term while it leads. */
    public final class TermContext implements Context {
        @Override
        public boolean isLeader() {
            LeaderElection current = election();
            return current != null && current.isLeader();
        }

        /** Gives up leading: the term is revoked, then the role's lock given back; asks again after the rejoin delay. */
        @Override
        public void yield() {
            LeaderElection current = election();
            if (current != null) {
                current.yieldLeadership();
            }
        }

        @Override
        public String getRole() {
            return candidate.getRole();
        }

        /** The term while this candidate leads: its number fences the leader's writes. */
        public Optional<Term> term() {
            LeaderElection current = election();
            return current == null ? Optional.empty() : current.term();
        }

        @Override
        public String toString() {
            return "TermContext[role=" + getRole() + ", id=" + candidate.getId() + ", leader=" + isLeader() + "]";
        }
    }

    private final class Listener implements LeadershipListener {
        @Override
        public void elected(Term term) {
            try {
                candidate.onGranted(context);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                log.warn("Candidate '{}' of role '{}' was interrupted in onGranted; yielding", candidate.getId(),
                        candidate.getRole());
                context.yield();
                return;
            }
            LeaderEventPublisher events = publisher;
            if (events != null) {
                events.publishOnGranted(LockManagerLeaderInitiator.this, context, candidate.getRole());
            }
        }

        @Override
        public void revoked(Term term, LockLossReason reason) {
            try {
                candidate.onRevoked(context);
            } finally {
                LeaderEventPublisher events = publisher;
                if (events != null) {
                    events.publishOnRevoked(LockManagerLeaderInitiator.this, context, candidate.getRole());
                }
            }
        }
    }
}
