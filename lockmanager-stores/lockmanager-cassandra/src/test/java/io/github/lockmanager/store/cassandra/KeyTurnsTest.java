package io.github.lockmanager.store.cassandra;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The changes of one key go one at a time, in the order asked; other keys do not wait; a change given up is not sent. */
class KeyTurnsTest {
    private final KeyTurns turns = new KeyTurns();

    @Test
    void aKeysChangesStartOneAfterAnotherInTheOrderAsked() {
        List<String> started = new ArrayList<>();
        CompletableFuture<String> first = new CompletableFuture<>();
        CompletableFuture<String> firstAnswer = turns.inTurn("k", () -> {
            started.add("first");
            return first;
        });
        CompletableFuture<String> secondAnswer = turns.inTurn("k", () -> {
            started.add("second");
            return CompletableFuture.completedFuture("2");
        });
        CompletableFuture<String> otherKey = turns.inTurn("other", () -> {
            started.add("other key");
            return CompletableFuture.completedFuture("o");
        });

        assertThat(started).containsExactly("first", "other key");
        assertThat(secondAnswer).isNotDone();
        first.complete("1");
        assertThat(started).containsExactly("first", "other key", "second");
        assertThat(firstAnswer).isCompletedWithValue("1");
        assertThat(secondAnswer).isCompletedWithValue("2");
        assertThat(otherKey).isCompletedWithValue("o");
        assertThat(turns.keysUnderWay()).as("nothing kept once a key's line is empty").isZero();
    }

    @Test
    void aFailedChangeStillGivesTheNextItsTurnAndAGivenUpChangeIsNeverSent() {
        CompletableFuture<String> first = new CompletableFuture<>();
        AtomicInteger sent = new AtomicInteger();
        CompletableFuture<String> failing = turns.inTurn("k", () -> first);
        CompletableFuture<String> givenUp = turns.inTurn("k", () -> {
            sent.incrementAndGet();
            return CompletableFuture.completedFuture("never");
        });
        CompletableFuture<String> third = turns.inTurn("k", () -> CompletableFuture.completedFuture("3"));

        givenUp.cancel(true);
        first.completeExceptionally(new IllegalStateException("timed out"));

        assertThat(failing).isCompletedExceptionally();
        assertThat(sent).as("the change given up before its turn").hasValue(0);
        assertThat(third).isCompletedWithValue("3");
        assertThat(turns.keysUnderWay()).isZero();
    }

    @Test
    void aChangeThatThrowsWhileStartingFailsItsOwnAnswerOnly() {
        CompletableFuture<String> throwing = turns.inTurn("k", () -> {
            throw new IllegalStateException("cannot start");
        });
        CompletableFuture<String> next = turns.inTurn("k", () -> CompletableFuture.completedFuture("next"));

        assertThat(throwing).isCompletedExceptionally();
        assertThat(next).isCompletedWithValue("next");
    }
}
