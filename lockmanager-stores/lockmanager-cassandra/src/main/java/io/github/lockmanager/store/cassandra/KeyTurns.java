package io.github.lockmanager.store.cassandra;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

/**
 * The changes of one key that this store has under way, taken in turn: a change starts when the one before it ended.
 * Lightweight transactions on one partition that overlap in time contend in Paxos, and each loses rounds to the
 * others (or times out) where one after another each applies at the first try, decided on the cell the one before
 * wrote. So a store sends at most one change of a key at a time, and many threads of one node on one key cost the
 * cluster no more contention than one. No thread waits for a turn: a change is started by the end of the one before.
 * A change whose caller gave up (its future cancelled) before its turn came is never sent.
 */
final class KeyTurns {
    private final ConcurrentMap<String, CompletableFuture<Void>> lastOf = new ConcurrentHashMap<>();

    /** Runs {@code change} once the key's changes started before it have ended; its future answers what it did. */
    <T> CompletableFuture<T> inTurn(String key, Supplier<CompletableFuture<T>> change) {
        CompletableFuture<T> answer = new CompletableFuture<>();
        CompletableFuture<Void> ended = new CompletableFuture<>();
        CompletableFuture<Void> before = lastOf.put(key, ended);
        Runnable start = () -> {
            if (answer.isDone()) {
                end(key, ended);
                return;
            }
            CompletableFuture<T> running;
            try {
                running = change.get();
            } catch (RuntimeException e) {
                running = CompletableFuture.failedFuture(e);
            }
            running.whenComplete((value, failure) -> {
                end(key, ended);
                if (failure != null) {
                    answer.completeExceptionally(failure);
                } else {
                    answer.complete(value);
                }
            });
        };
        if (before == null) {
            start.run();
        } else {
            before.whenComplete((ignored, failure) -> start.run());
        }
        return answer;
    }

    private void end(String key, CompletableFuture<Void> ended) {
        // the last change of the key ends its line: nothing is kept for a key no change is under way for
        lastOf.remove(key, ended);
        ended.complete(null);
    }

    /** Keys with a change under way (for tests). */
    int keysUnderWay() {
        return lastOf.size();
    }
}
