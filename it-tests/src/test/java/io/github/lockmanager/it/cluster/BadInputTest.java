package io.github.lockmanager.it.cluster;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.store.jdbc.JdbcLockStore;
import io.github.lockmanager.store.jdbc.DatabaseAccess;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bad input through the public API on a real store: each gets a clear error, and nothing held is lost. */
class BadInputTest {
    @Test
    void badCallsAreRefusedClearlyAndLoseNothingHeld() throws Exception {
        LockStore store = Stores.postgres("lockmanager_bad_input").store();
        String client = "bad-" + UUID.randomUUID().toString().substring(0, 8);
        try (LockManager manager = LockManagerBuilder.newBuilder().store(store).clientId(client).nodeId("n").build()) {
            LockResource held = manager.lock("held");

            assertThatThrownBy(() -> manager.lock((String) null)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("null");
            assertThatThrownBy(() -> manager.lock("")).hasMessageContaining("empty");
            assertThatThrownBy(() -> manager.lock("x".repeat(257))).hasMessageContaining("257 chars");
            assertThatThrownBy(() -> manager.lock("bad\u0000")).hasMessageContaining("NUL");
            assertThatThrownBy(() -> manager.abort(null)).isInstanceOf(IllegalArgumentException.class);
            manager.unlock("never-held"); // Hippo's rule: a warning, nothing else
            AtomicReference<Throwable> strangerGot = new AtomicReference<>();
            Thread stranger = new Thread(() -> {
                try {
                    manager.unlock("held");
                } catch (Throwable t) {
                    strangerGot.set(t);
                }
            }, "stranger");
            stranger.start();
            stranger.join();
            assertThat(strangerGot.get()).isNull();
            assertThat(held.isClosed()).as("a stranger's unlock gives nothing back").isFalse();
            LockResource other = manager.lock("other");
            Thread closer = new Thread(other::close, "closer");
            closer.start();
            closer.join();
            other.close();
            assertThat(manager.lock("unicode-订单-#-\uD83D\uDD12").isNewLock()).isTrue();

            assertThat(store.read(LockKey.dc("default", client, "held"))).as("still held after all that").isPresent();
            assertThat(store.read(LockKey.dc("default", client, "other"))).isEmpty();
            assertThat(held.isClosed()).isFalse();
            held.close();
        }
    }

    @Test
    void aStoreWhoseTableCannotBeCreatedFailsTheBuildNamingIt() {
        JdbcLockStore store = JdbcLockStore.builder(DatabaseAccess.postgres()).tableName("no_such_schema.locks").build();
        assertThatThrownBy(() -> LockManagerBuilder.newBuilder().store(store).build())
                .isInstanceOfSatisfying(LockManagerException.class, e -> {
                    assertThat(e.getErrorCode()).isEqualTo(ErrorCode.TABLE_CREATION_ERROR);
                    assertThat(e.getMessage()).contains("no_such_schema.locks").contains("SQL state");
                });
    }

    @Test
    void aStoreThatCannotBeReachedFailsTheBuildAsAConnectionError() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:postgresql://127.0.0.1:1/test");
        config.setUsername("postgres");
        config.setConnectionTimeout(500);
        config.setInitializationFailTimeout(-1);
        try (HikariDataSource nowhere = new HikariDataSource(config)) {
            JdbcLockStore store = JdbcLockStore.builder(nowhere).build();
            assertThatThrownBy(() -> LockManagerBuilder.newBuilder().store(store).lease(Duration.ofSeconds(3)).build())
                    .isInstanceOfSatisfying(LockManagerException.class,
                            e -> assertThat(e.getErrorCode()).isEqualTo(ErrorCode.CONNECTION_ERROR));
        }
    }
}
