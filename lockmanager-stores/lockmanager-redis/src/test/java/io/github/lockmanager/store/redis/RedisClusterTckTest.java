package io.github.lockmanager.store.redis;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.testing.RequestContract;
import io.github.lockmanager.testing.StoreTck;
import org.junit.jupiter.api.AfterAll;

import java.time.Duration;

/** The whole TCK on a real Redis Cluster of three masters: every lock's hash in one slot, batches split by slot. */
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

    /** A request is one key's record like any lock's; {@code RedisTckTest} runs the requests contract. */
    @Override
    protected boolean runs(Class<?> contract) {
        return contract != RequestContract.class;
    }
}
