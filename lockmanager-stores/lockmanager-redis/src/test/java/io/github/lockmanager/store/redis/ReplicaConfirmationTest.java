package io.github.lockmanager.store.redis;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRequest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Grants confirmed on replicas ({@code WAIT} in the grant's round trip), with a real replica this test starts: a grant
 * the replica acknowledged is on the replica; one no replica can acknowledge is withdrawn, leaving the key free.
 */
class ReplicaConfirmationTest {
    private static final Duration LEASE = Duration.ofSeconds(30);

    private static LockRequest request(String name) {
        return LockRequest.of(LockHandle.of(LockKey.xdc("replicas", name), "owner-", System.nanoTime()), "node-1",
                "main", LockMode.EXCLUSIVE);
    }

    @Test
    void aConfirmedGrantIsOnTheReplicaWhenItIsAnswered() throws Exception {
        try (RedisProcess master = RedisProcess.launch();
             RedisProcess replica = RedisProcess.launch()) {
            try (CommandStats onReplica = new CommandStats(replica.uri())) {
                onReplica.commands().replicaof("127.0.0.1", master.port());
                await().atMost(Duration.ofSeconds(20)).until(() ->
                        onReplica.commands().info("replication").contains("master_link_status:up"));
                try (RedisLockStore store = RedisLockStoreTest.fresh(RedisLockStore.builder(master.uri()))
                        .confirmReplicas(1, Duration.ofSeconds(2)).build()) {
                    store.initialize();
                    LockRequest request = request("confirmed");
                    assertThat(store.acquire(request, LEASE).isAcquired()).isTrue();
                    assertThat(onReplica.commands().hget("lockmanager:" + request.key().storageKey(),
                            RedisLayout.holderField(request.handle()))).isNotNull();
                    assertThat(store.renew(List.of(request.handle()), LEASE))
                            .containsEntry(request.handle(), HoldState.HELD);
                }
            }
        }
    }

    @Test
    void aGrantNoReplicaConfirmsIsWithdrawnAndTheKeyLeftFree() throws Exception {
        try (RedisProcess alone = RedisProcess.launch();
             RedisLockStore store = RedisLockStoreTest.fresh(RedisLockStore.builder(alone.uri()))
                     .confirmReplicas(1, Duration.ofMillis(50))
                     .operationTimeout(Duration.ofSeconds(3)).build();
             RedisLockStore plain = RedisLockStoreTest.fresh(RedisLockStore.builder(alone.uri())).build()) {
            store.initialize();
            plain.initialize();
            LockRequest request = request("unconfirmed");
            assertThatThrownBy(() -> store.acquire(request, LEASE)).isInstanceOf(LockManagerException.class)
                    .hasMessageContaining("not confirmed by 1 replica")
                    .extracting(e -> ((LockManagerException) e).getErrorCode())
                    .isIn(ErrorCode.RETRIES_EXHAUSTED);
            assertThat(plain.read(request.key())).isEmpty();
            assertThat(plain.acquire(request("unconfirmed"), LEASE).isAcquired()).isTrue();
        }
    }
}
