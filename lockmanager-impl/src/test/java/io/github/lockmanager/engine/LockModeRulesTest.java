package io.github.lockmanager.engine;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.store.memory.InMemoryLockStore;
import org.junit.jupiter.api.Test;


import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the manager checks before any store call for shared and hierarchical locks. */
class LockModeRulesTest {

    @Test
    void pathsAndSeparatorsAreCheckedNamingWhatIsWrong() throws Exception {
        assertThatThrownBy(() -> LockManagerBuilder.newBuilder().pathSeparator('\u0000'))
                .hasMessageContaining("pathSeparator").hasMessageContaining("U+0000");
        assertThatThrownBy(() -> LockManagerBuilder.newBuilder().pathSeparator('\uD800'))
                .hasMessageContaining("pathSeparator");
        try (LockManager manager = LockManagerBuilder.newBuilder().store(new InMemoryLockStore()).pathSeparator('.')
                .build()) {
            assertThatThrownBy(() -> manager.lock(LockSpec.path(".a", LockMode.SHARED))).hasMessageContaining("empty segment at index 0");
            assertThatThrownBy(() -> manager.lock(LockSpec.path("a.", LockMode.SHARED))).hasMessageContaining("empty segment at index 2");
            assertThatThrownBy(() -> manager.lock(LockSpec.path("a", null))).hasMessage("lock mode must not be null");
            assertThatThrownBy(() -> manager.lock(LockSpec.path("x".repeat(257), LockMode.SHARED))).hasMessageContaining("257 chars");
            try (LockResource path = manager.lock(LockSpec.path("a/b.c", LockMode.EXCLUSIVE))) {
                assertThat(manager.getLocks()).extracting(l -> l.getKey() + " " + l.getMode())
                        .as("split at the configured separator only").containsExactlyInAnyOrder(
                                "a/b INTENT_EXCLUSIVE", "a/b.c EXCLUSIVE");
            }
            assertThat(manager.getLocks()).isEmpty();
        }
    }

    @Test
    void theConflictTableIsSymmetricAndExclusiveCoversEverything() {
        for (LockMode a : LockMode.values()) {
            assertThat(LockMode.EXCLUSIVE.covers(a)).isTrue();
            assertThat(a.covers(a)).isTrue();
            for (LockMode b : LockMode.values()) {
                assertThat(a.conflictsWith(b)).as("%s/%s", a, b).isEqualTo(b.conflictsWith(a));
            }
        }
        assertThat(LockMode.SHARED.conflictsWith(LockMode.SHARED)).isFalse();
        assertThat(LockMode.SHARED.covers(LockMode.INTENT_EXCLUSIVE)).isFalse();
        assertThat(LockMode.SHARED.intention()).isEqualTo(LockMode.INTENT_SHARED);
        assertThat(LockMode.EXCLUSIVE.intention()).isEqualTo(LockMode.INTENT_EXCLUSIVE);
    }

    @Test
    void unlockLeavesASharedHoldHeldAndSaysHowToGiveItBack() throws Exception {
        try (LockManager manager = LockManagerBuilder.newBuilder().store(new InMemoryLockStore()).nodeId("n").build();
             LockResource shared = manager.lock(LockSpec.shared("report"));
             StderrLog log = new StderrLog()) {
            manager.unlock("report");
            assertThat(log.text()).contains("called unlock('report') (DC) on node 'n' but holds that lock SHARED")
                    .contains("close the LockResource");
            assertThat(shared.isClosed()).isFalse();
            assertThat(manager.isLocked("report")).isTrue();
        }
    }

    @Test
    void unlockWithoutAHoldOnlyWarnsAsHippoDoes() throws Exception {
        try (LockManager manager = LockManagerBuilder.newBuilder().store(new InMemoryLockStore()).nodeId("n").build();
             StderrLog log = new StderrLog()) {
            LockResource held = manager.lock("job");
            Thread stranger = new Thread(() -> manager.unlock("job"), "stranger");
            stranger.start();
            stranger.join(10_000);
            manager.unlock("never-taken");
            assertThat(log.text()).contains("Thread 'stranger' called unlock('job') (DC) on node 'n' without holding")
                    .contains("called unlock('never-taken')").contains("nothing was given back");
            assertThat(held.isClosed()).isFalse();
            assertThat(manager.isLocked("job")).isTrue();
            held.close();
            assertThatThrownBy(() -> manager.unlock(null)).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
