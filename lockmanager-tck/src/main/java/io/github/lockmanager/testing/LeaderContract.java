package io.github.lockmanager.testing;

import io.github.lockmanager.Lock;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockWatch;
import io.github.lockmanager.leader.Leader;
import io.github.lockmanager.leader.LeaderElection;
import io.github.lockmanager.leader.LeadershipListener;
import io.github.lockmanager.leader.Term;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.testing.support.InstrumentedStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Leader elections ({@link LeaderElection}) on the store: one leader at a time among members on several nodes, terms
 * that only grow, a term revoked before the next begins (a yield, an abort from another node, a node that closes, a
 * lease lost to the store), and who leads as any node sees it.
 */
public abstract class LeaderContract extends ContractNodes {
    private static final String NAME = "leader";
    private final List<LeaderElection> elections = new CopyOnWriteArrayList<>();
    /** What every member's listener was told, in the order told: "elected 12 a", "revoked 12 a null". */
    private final List<String> told = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeElections() {
        elections.forEach(LeaderElection::close);
    }

    private LeaderElection member(LockManager node, String member) {
        LeaderElection election = LeaderElection.builder(node, NAME).member(member)
                .rejoinDelay(Duration.ofMillis(300)).listener(new LeadershipListener() {
                    @Override
                    public void elected(Term term) {
                        told.add("elected " + term.number() + " " + term.member());
                    }

                    @Override
                    public void revoked(Term term, LockLossReason reason) {
                        told.add("revoked " + term.number() + " " + term.member() + " " + reason);
                    }
                }).build();
        elections.add(election);
        election.start();
        return election;
    }

    private static LeaderElection theLeader(List<LeaderElection> members) {
        return await().atMost(Duration.ofSeconds(30)).until(() -> {
            List<LeaderElection> leading = new ArrayList<>();
            for (LeaderElection m : members) {
                if (m.isLeader()) {
                    leading.add(m);
                }
            }
            return leading.size() == 1 ? leading.get(0) : null;
        }, m -> m != null);
    }

    /** Each "revoked" of a term comes before the "elected" of every later one, and terms only grow. */
    private void assertTermsFollowEachOther() {
        long lastElected = Long.MIN_VALUE;
        String open = null;
        for (String line : told) {
            String[] parts = line.split(" ");
            long number = Long.parseLong(parts[1]);
            if (parts[0].equals("elected")) {
                assertThat(open).as("a term elected while another was not yet revoked: " + told).isNull();
                assertThat(number).as("terms only grow: " + told).isGreaterThan(lastElected);
                lastElected = number;
                open = parts[1];
            } else {
                assertThat(parts[1]).as("the term revoked is the open one: " + told).isEqualTo(open);
                open = null;
            }
        }
    }

    @Test
    void oneMemberLeadsAndAYieldRevokesItsTermBeforeAnotherBeginsWithAHigherNumber() throws Exception {
        List<LeaderElection> members = List.of(member(node("a"), "a"), member(node("b"), "b"), member(node("c"), "c"));
        LeaderElection first = theLeader(members);
        Term firstTerm = first.term().orElseThrow();
        firstTerm.check(Duration.ofSeconds(1));

        first.yieldLeadership();

        assertThat(first.isLeader()).isFalse();
        assertThatThrownBy(firstTerm::check).isInstanceOf(LockLostException.class).hasMessageContaining("is over");
        await().atMost(Duration.ofSeconds(30)).until(() -> members.stream().anyMatch(m -> m != first && m.isLeader()));
        LeaderElection second = theLeader(members);
        assertThat(second.term().orElseThrow().number()).isGreaterThan(firstTerm.number());
        assertTermsFollowEachOther();
    }

    @Test
    void anAbortAskedOnAnotherNodeEndsTheTermAndAnotherMemberLeads() throws Exception {
        LockManager admin = node("admin");
        List<LeaderElection> members = List.of(member(node("a"), "a"), member(node("b"), "b"));
        LeaderElection first = theLeader(members);
        long firstNumber = first.term().orElseThrow().number();

        admin.abort(NAME);

        await().atMost(Duration.ofSeconds(30)).until(() -> told.contains("revoked " + firstNumber + " "
                + first.member() + " null"));
        LeaderElection next = await().atMost(Duration.ofSeconds(30)).until(() -> theLeader(members),
                m -> m.term().map(t -> t.number() > firstNumber).orElse(false));
        assertThat(next).isNotNull();
        assertTermsFollowEachOther();
    }

    @Test
    void aLeaderWhoseNodeClosesIsFollowedByAnotherAndWhoLeadsIsSeenWithoutJoining() throws Exception {
        LockManager a = node("a");
        LockManager watcher = node("watcher");
        LeaderElection onA = member(a, "a");
        await().atMost(Duration.ofSeconds(30)).until(onA::isLeader);
        LeaderElection onB = member(node("b"), "b");
        assertThat(LeaderElection.leaderOf(watcher, NAME, LockLevel.DC)).hasValueSatisfying(leader -> {
            assertThat(leader.node()).isEqualTo("a");
            assertThat(leader.member()).isEqualTo("a");
            assertThat(leader.term()).isEqualTo(onA.term().orElseThrow().number());
        });

        a.close();

        await().atMost(Duration.ofSeconds(30)).until(onB::isLeader);
        assertThat(onA.isLeader()).isFalse();
        assertThat(LeaderElection.leaderOf(watcher, NAME, LockLevel.DC)).hasValueSatisfying(leader ->
                assertThat(leader.member()).isEqualTo("b"));
        assertTermsFollowEachOther();
    }

    @Test
    void aTermLostToTheStoreIsRevokedWithItsReasonItsGuardRefusesAndTheMemberLeadsAgainLater() throws Exception {
        InstrumentedStore store = new InstrumentedStore(store());
        LockManager a = start(nodeBuilder("a", store).lease(Duration.ofSeconds(3))
                .renewalInterval(Duration.ofMillis(200)));
        LeaderElection onA = member(a, "a");
        await().atMost(Duration.ofSeconds(30)).until(onA::isLeader);
        Term term = onA.term().orElseThrow();

        store.setRenewalsLost(true);

        await().atMost(Duration.ofSeconds(30)).until(() -> told.stream().anyMatch(l -> l.startsWith(
                "revoked " + term.number() + " a ") && !l.endsWith("null")));
        assertThatThrownBy(term::check).isInstanceOf(LockLostException.class);
        assertThat(term.isCurrent()).isFalse();
        store.setRenewalsLost(false);
        await().atMost(Duration.ofSeconds(30)).until(() -> onA.term().map(t -> t.number() > term.number())
                .orElse(false));
        assertTermsFollowEachOther();
    }

    @Test
    void aWatcherIsToldEachTermWithoutJoiningAndNothingOnceClosed() throws Exception {
        LockManager watcher = node("watcher");
        List<Optional<Leader>> seen = new CopyOnWriteArrayList<>();
        LeaderElection onA;
        try (LockWatch ignored = LeaderElection.watchLeader(watcher, NAME, LockLevel.DC, Duration.ofMillis(100),
                seen::add)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> !seen.isEmpty());
            assertThat(seen.get(0)).as("nobody leads yet").isEmpty();
            onA = member(node("a"), "a");
            await().atMost(Duration.ofSeconds(30)).until(onA::isLeader);
            long first = onA.term().orElseThrow().number();
            await().atMost(Duration.ofSeconds(30)).until(() -> last(seen).map(l -> l.term() == first
                    && l.member().equals("a") && l.node().equals("a")).orElse(false));

            onA.yieldLeadership();

            // alone, the member leads again after its rejoin delay, in a new term
            await().atMost(Duration.ofSeconds(30)).until(() -> last(seen).map(l -> l.term() > first).orElse(false));
            for (int i = 1; i < seen.size(); i++) {
                assertThat(seen.get(i)).as("each change told once: no two equal in a row, " + seen)
                        .isNotEqualTo(seen.get(i - 1));
            }
        }
        int told = seen.size();
        onA.close();
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> seen.size() == told);
    }

    @Test
    void aWatchOfAKeyHearsOfItsReleaseByTheStoresAnnouncementWhereItMakesOne() throws Exception {
        LockManager watcher = node("watcher");
        LockManager holder = node("holder");
        HeldElsewhere held = holdInThread(holder, "watched");
        held.acquired.await();
        boolean announced = announcesReleases(LockKey.of(LockLevel.DC, "farm1", clientId, "watched"));
        List<List<Lock>> seen = new CopyOnWriteArrayList<>();
        // where releases are announced, the poll is too slow to be what tells the release
        try (LockWatch ignored = watcher.watch("watched", LockLevel.DC, announced ? Duration.ofHours(1)
                : Duration.ofMillis(100), seen::add)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> !seen.isEmpty());
            assertThat(seen.get(0)).singleElement().satisfies(lock -> {
                assertThat(lock.getOwnerNodeId()).isEqualTo("holder");
                assertThat(lock.getHolderThreadName()).isEqualTo("holder-watched");
            });

            held.letGo.countDown();

            await().atMost(Duration.ofSeconds(30)).until(() -> last(seen).isEmpty());
            assertThat(seen).hasSize(2);
        }
        assertThatThrownBy(() -> watcher.watch("watched", LockLevel.DC, Duration.ofMillis(1), seen::add))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pollInterval");
    }

    private static <T> T last(List<T> list) {
        return list.get(list.size() - 1);
    }

    @Test
    void aClosedMemberHoldsNothingAndItsThreadStops() throws Exception {
        LockManager a = node("a");
        LeaderElection onA = member(a, "a");
        await().atMost(Duration.ofSeconds(30)).until(onA::isLeader);

        onA.close();

        assertThat(a.isLocked(NAME)).isFalse();
        assertThat(told).last().asString().startsWith("revoked ").endsWith(" a null");
        await().atMost(Duration.ofSeconds(10)).until(() -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().equals("lockmanager-leader-" + NAME) && t.isAlive()));
        assertThatThrownBy(onA::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }
}
