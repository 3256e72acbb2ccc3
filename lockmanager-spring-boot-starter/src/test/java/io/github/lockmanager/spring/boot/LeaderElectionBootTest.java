package io.github.lockmanager.spring.boot;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.integration.leader.AbstractCandidate;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Spring Integration candidates of two applications on one PostgreSQL, elected through lockmanager when
 * {@code lockmanager.leader.enabled} is set: one is granted, each grant and revocation is published as Spring
 * Integration's event, the {@code lockleaders} endpoint says who leads, and closing the leader's context hands the
 * role over.
 */
class LeaderElectionBootTest {
    private static final String CLIENT = BootApps.clientId();

    @Test
    void oneApplicationsCandidateLeadsItsEventsArePublishedAndClosingItHandsTheRoleOver() throws Exception {
        ConfigurableApplicationContext a = BootApps.start(CandidateApp.class, WebApplicationType.NONE,
                BootApps.postgres(CLIENT, "leader-a"), "lockmanager.leader.enabled=true",
                "spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=lockleaders");
        try (ConfigurableApplicationContext b = BootApps.start(CandidateApp.class, WebApplicationType.NONE,
                BootApps.postgres(CLIENT, "leader-b"), "lockmanager.leader.enabled=true")) {
            await().atMost(Duration.ofSeconds(30)).until(() -> granted(a) + granted(b) == 1);
            ConfigurableApplicationContext leader = granted(a) == 1 ? a : b;
            ConfigurableApplicationContext follower = leader == a ? b : a;
            String leaderNode = leader == a ? "leader-a" : "leader-b";
            LockLeadersEndpoint endpoint = a.getBean(LockLeadersEndpoint.class);
            assertThat(endpoint.leaders()).singleElement().satisfies(view -> {
                assertThat(view.role()).isEqualTo("boot-leader");
                assertThat(view.leading()).isEqualTo(leader == a);
                assertThat(view.leaderNode()).isEqualTo(leaderNode);
                assertThat(view.leaderTerm()).isNotNull();
            });

            Events leaderEvents = leader.getBean(Events.class);
            leader.close();

            await().atMost(Duration.ofSeconds(30)).until(() -> granted(follower) == 1);
            assertThat(leaderEvents.seen).containsExactly("candidate granted", "event granted",
                    "candidate revoked", "event revoked");
        } finally {
            a.close();
        }
    }

    @Test
    void withoutTheSettingNoCandidateIsElectedByLockmanager() {
        try (ConfigurableApplicationContext app = BootApps.start(CandidateApp.class, WebApplicationType.NONE,
                BootApps.postgres(CLIENT, "leader-off"))) {
            assertThat(app.getBeansOfType(LeaderInitiators.class)).isEmpty();
            assertThat(app.getBean(Events.class).seen).isEmpty();
        }
    }

    private static int granted(ConfigurableApplicationContext app) {
        List<String> seen = app.getBean(Events.class).seen;
        long grants = seen.stream().filter(s -> s.equals("event granted")).count();
        long revocations = seen.stream().filter(s -> s.equals("event revoked")).count();
        return (int) (grants - revocations);
    }

    /** What a context's candidate and its event listener saw, in order. */
    static class Events {
        final List<String> seen = new CopyOnWriteArrayList<>();

        @EventListener
        public void on(AbstractLeaderEvent event) {
            if (event instanceof OnGrantedEvent) {
                seen.add("event granted");
            } else if (event instanceof OnRevokedEvent) {
                seen.add("event revoked");
            }
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class CandidateApp {
        @Bean
        Events events() {
            return new Events();
        }

        @Bean
        Candidate candidate(Events events, Environment environment) {
            return new AbstractCandidate(environment.getProperty("lockmanager.node-id"), "boot-leader") {
                @Override
                public void onGranted(Context ctx) {
                    events.seen.add("candidate granted");
                }

                @Override
                public void onRevoked(Context ctx) {
                    events.seen.add("candidate revoked");
                }
            };
        }
    }
}
