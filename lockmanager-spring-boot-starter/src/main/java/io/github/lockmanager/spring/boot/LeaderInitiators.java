package io.github.lockmanager.spring.boot;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.spring.integration.LockManagerLeaderInitiator;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;

import java.util.ArrayList;
import java.util.List;

/**
 * Elects each of the application's Spring Integration {@link Candidate} beans through lockmanager
 * ({@link LockManagerLeaderInitiator}, one per candidate), publishing Spring Integration's {@code OnGrantedEvent} and
 * {@code OnRevokedEvent} as application events; started and stopped with the context, in the late phase of Spring
 * Integration's own initiators. Made by the starter when {@code lockmanager.leader.enabled} is {@code true}.
 */
public class LeaderInitiators implements SmartLifecycle {
    private final List<LockManagerLeaderInitiator> initiators = new ArrayList<>();
    private volatile boolean running;

    public LeaderInitiators(LockManager manager, List<Candidate> candidates, ApplicationEventPublisher events) {
        DefaultLeaderEventPublisher publisher = new DefaultLeaderEventPublisher(events);
        for (Candidate candidate : candidates) {
            LockManagerLeaderInitiator initiator = new LockManagerLeaderInitiator(manager, candidate);
            initiator.setLeaderEventPublisher(publisher);
            initiators.add(initiator);
        }
    }

    /** One initiator per candidate, in the order the context listed the candidates. */
    public List<LockManagerLeaderInitiator> initiators() {
        return List.copyOf(initiators);
    }

    @Override
    public void start() {
        initiators.forEach(LockManagerLeaderInitiator::start);
        running = true;
    }

    @Override
    public void stop() {
        initiators.forEach(LockManagerLeaderInitiator::stop);
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return Integer.MAX_VALUE - 1000;
    }
}
