package io.github.lockmanager.store.redis;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.testing.LockManagerContract;
import io.github.lockmanager.testing.LockModeContract;
import io.github.lockmanager.testing.LockStoreContract;
import io.github.lockmanager.testing.LossContract;
import io.github.lockmanager.testing.PermitContract;
import io.github.lockmanager.testing.StoreTck;
import org.junit.jupiter.api.AfterAll;

import java.time.Duration;

/** The TCK on a real Redis Cluster of three masters: every lock's hash in one slot, batches split by slot. */
class RedisClusterTckTest extends StoreTck {
    private static RedisCluster cluster;
    private static RedisLockStore store;

    @Override
    protected synchronized LockStore store() {
        if (store == null) {
            try {
                cluster = RedisCluster.start();
                // a quarantine, so that every grant reads its slot's incarnation marker (which must share the lock's
                // slot), ended for every slot at once: the TCK asks for leases of up to a day on a new cluster
                store = RedisLockStore.clusterBuilder(cluster.uris()).keyPrefix("tck:")
                        .restartQuarantine(Duration.ofDays(1)).build();
                store.initialize();
                store.endRestartQuarantine();
            } catch (LockManagerException | java.io.IOException e) {
                throw new IllegalStateException("could not start a Redis Cluster", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return store;
    }

    @AfterAll
    static void stopCluster() throws InterruptedException {
        if (store != null) {
            store.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /**
     * The contracts whose store calls a cluster splits by slot (the SPI's batches, modes, permits) and the engine's and
     * losses' batched renewals over them; those that only combine the same calls otherwise (requests, leaders, tasks,
     * hand-offs, guarded holds) run on {@code RedisTckTest}.
     */
    @Override
    protected boolean runs(Class<?> contract) {
        return contract == LockStoreContract.class || contract == LockModeContract.class
                || contract == PermitContract.class || contract == LockManagerContract.class
                || contract == LossContract.class;
    }
}
