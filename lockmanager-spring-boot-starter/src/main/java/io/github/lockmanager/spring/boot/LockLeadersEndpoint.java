package io.github.lockmanager.spring.boot;

import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.leader.LeaderElection;
import io.github.lockmanager.leader.Term;
import io.github.lockmanager.spring.integration.LockManagerLeaderInitiator;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code lockleaders} Actuator endpoint: {@code GET /actuator/lockleaders} lists the roles this application's
 * candidates stand for ({@link LeaderInitiators}): whether this one leads and in which term, and who leads as the
 * store says (node, member, term, since). One store read per role. Read-only.
 */
@Endpoint(id = "lockleaders")
public class LockLeadersEndpoint {
    private final LockManager manager;
    private final LeaderInitiators initiators;

    public LockLeadersEndpoint(LockManager manager, LeaderInitiators initiators) {
        this.manager = manager;
        this.initiators = initiators;
    }

    /**
     * One role, as the endpoint shows it: {@code term} is this candidate's while it leads (else {@code null});
     * the {@code leader*} fields say who leads, on any node ({@code null} when nobody does).
     */
    public record LeaderView(String role, String candidate, boolean leading, Long term, String leaderNode,
                             String leaderMember, Long leaderTerm, String leaderSince) {
    }

    @ReadOperation
    public List<LeaderView> leaders() throws LockManagerException {
        List<LeaderView> views = new ArrayList<>();
        for (LockManagerLeaderInitiator initiator : initiators.initiators()) {
            String role = initiator.getCandidate().getRole();
            Long term = initiator.getContext().term().map(Term::number).orElse(null);
            var leader = LeaderElection.leaderOf(manager, role, initiator.getLevel());
            views.add(new LeaderView(role, initiator.getCandidate().getId(), term != null, term,
                    leader.map(l -> l.node()).orElse(null), leader.map(l -> l.member()).orElse(null),
                    leader.map(l -> l.term()).orElse(null), leader.map(l -> String.valueOf(l.since())).orElse(null)));
        }
        return views;
    }
}
