package io.github.lockmanager.engine;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LeasePolicyTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void renewalDefaultsToAThirdOfTheLeaseAndMayNotBeLonger() {
        LeasePolicy defaults = LeasePolicy.of(Duration.ofSeconds(60), null, Duration.ofSeconds(5));
        assertThat(defaults.renewalInterval()).isEqualTo(Duration.ofSeconds(20));
        assertThat(defaults.tick()).as("the shorter of renewal and abort poll").isEqualTo(Duration.ofSeconds(5));
        assertThat(defaults.watchdogPeriod()).isEqualTo(Duration.ofSeconds(3));
        assertThatThrownBy(() -> LeasePolicy.of(Duration.ofSeconds(60), Duration.ofSeconds(21), Duration.ofSeconds(5)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("at most a third of the lease");
    }

    @Test
    void aLockIsAtRiskOneLossMarginBeforeItsConfirmedEnd() {
        LeasePolicy policy = LeasePolicy.of(Duration.ofSeconds(60), null, Duration.ofSeconds(5));
        long sentAt = 1_000 * SECOND;
        long end = policy.leaseEnd(sentAt);
        assertThat(end).isEqualTo(sentAt + 60 * SECOND);
        assertThat(policy.lossMargin()).isEqualTo(Duration.ofSeconds(12));
        assertThat(policy.atRisk(end, end - 12 * SECOND - 1)).isFalse();
        assertThat(policy.atRisk(end, end - 12 * SECOND)).isTrue();
        assertThat(policy.tooLateToUse(48 * SECOND - 1)).isFalse();
        assertThat(policy.tooLateToUse(48 * SECOND)).as("a grant the watchdog would declare lost at once").isTrue();
        assertThat(policy.nextRenewal(sentAt)).isEqualTo(sentAt + 20 * SECOND);
        assertThat(policy.longestSafeCycle()).isEqualTo(Duration.ofSeconds(28));
    }

    @Test
    void aCallsLeaseRenewsAtTheManagersIntervalOrAtAThirdOfItselfWhenThatIsSooner() {
        LeasePolicy defaults = LeasePolicy.of(Duration.ofSeconds(60), null, Duration.ofSeconds(5));

        LeasePolicy shorter = defaults.forLease(Duration.ofSeconds(3));
        assertThat(shorter.renewalInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(shorter.tick()).isEqualTo(Duration.ofSeconds(1));
        assertThat(shorter.watchdogPeriod()).isEqualTo(Duration.ofMillis(150));
        assertThat(shorter.lossMargin()).isEqualTo(Duration.ofMillis(600));
        assertThat(shorter.abortPollInterval()).isEqualTo(Duration.ofSeconds(5));

        LeasePolicy longer = defaults.forLease(Duration.ofMinutes(10));
        assertThat(longer.renewalInterval()).isEqualTo(Duration.ofSeconds(20));
        assertThat(longer.lossMargin()).isEqualTo(Duration.ofMinutes(2));

        assertThat(defaults.forLease(Duration.ofSeconds(60))).isSameAs(defaults);
        assertThat(defaults.forLease(Duration.ofSeconds(3))).isEqualTo(shorter).isNotEqualTo(longer);
    }

    @Test
    void aLeaseOutOfRangeIsRefusedNamingTheBound() {
        assertThatThrownBy(() -> LeasePolicy.checkLease(Duration.ofMillis(99)))
                .hasMessage("lease must be at least 100ms, was PT0.099S");
        assertThatThrownBy(() -> LeasePolicy.checkLease(Duration.ofHours(25)))
                .hasMessage("lease must be at most PT24H, was PT25H");
        assertThatThrownBy(() -> LeasePolicy.checkLease(Duration.ofSeconds(-1)))
                .hasMessage("lease must be at least 100ms, was PT-1S");
        assertThatThrownBy(() -> LeasePolicy.checkLease(null)).hasMessage("lease must not be null");
    }
}
