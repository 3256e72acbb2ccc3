package io.github.lockmanager.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class PollBackoffTest {
    private static final long INTERVAL = TimeUnit.MILLISECONDS.toNanos(200);

    @Test
    void pausesStartAtAnEighthOfTheIntervalAndGrowToItWithoutPassingIt() {
        List<Long> pauses = pauses(new PollBackoff(INTERVAL, new SplittableRandom(1)), 12);

        assertThat(pauses.get(0)).isBetween(INTERVAL / 16, INTERVAL / 8);
        assertThat(pauses.get(1)).isBetween(INTERVAL / 8, INTERVAL / 4);
        assertThat(pauses.get(2)).isBetween(INTERVAL / 4, INTERVAL / 2);
        assertThat(pauses.subList(3, pauses.size())).allSatisfy(p -> assertThat(p).isBetween(INTERVAL / 2, INTERVAL));
    }

    @Test
    void waitersThatStartTogetherPauseForDifferentTimes() {
        List<Long> first = pauses(new PollBackoff(INTERVAL, new SplittableRandom(1)), 6);
        List<Long> second = pauses(new PollBackoff(INTERVAL, new SplittableRandom(2)), 6);

        assertThat(first).doesNotContainSequence(second);
        assertThat(sum(first)).isNotEqualTo(sum(second));
    }

    @Test
    void extremeIntervalsStayInRange() {
        assertThat(pauses(new PollBackoff(1, new SplittableRandom(3)), 5)).allSatisfy(p -> assertThat(p).isBetween(0L, 1L));
        assertThat(pauses(new PollBackoff(Long.MAX_VALUE, new SplittableRandom(4)), 80))
                .allSatisfy(p -> assertThat(p).isPositive());
    }

    private static List<Long> pauses(PollBackoff backoff, int count) {
        List<Long> pauses = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            pauses.add(backoff.nextNanos());
        }
        return pauses;
    }

    private static long sum(List<Long> pauses) {
        return pauses.stream().mapToLong(Long::longValue).sum();
    }
}
