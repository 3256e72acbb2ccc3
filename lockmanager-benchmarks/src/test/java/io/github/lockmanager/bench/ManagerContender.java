package io.github.lockmanager.bench;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.spi.LockStore;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Ours as {@link PeerBench} drives it: a lock manager on the given store, its holds kept by key. */
abstract class ManagerContender implements Contender {
    private static final Duration LEASE = Duration.ofMinutes(1);

    private final LockManager manager;
    private final Map<String, LockResource> held = new ConcurrentHashMap<>();
    /** Whether its waits are fair ({@link LockSpec#fair(boolean)}); the fairness figure sets it. */
    private volatile boolean fair;

    ManagerContender(LockStore store, String node, String client) throws Exception {
        manager = LockManagerBuilder.newBuilder().store(store).clientId(client).nodeId(node).lease(LEASE)
                .waitPollInterval(Contender.POLL).build();
    }

    @Override
    public String name() {
        return fair ? "lockmanager, fair" : "lockmanager";
    }

    /** Makes its waits and tries fair from now on. */
    ManagerContender fair() {
        fair = true;
        return this;
    }

    @Override
    public boolean tryLock(String key) throws Exception {
        try {
            held.put(key, fair ? manager.lock(LockSpec.of(key).fair(true)) : manager.lock(key));
            return true;
        } catch (AlreadyLockedException e) {
            return false;
        }
    }

    @Override
    public void unlock(String key) {
        held.remove(key).close();
    }

    @Override
    public void lockWaiting(String key, Duration interval) throws Exception {
        // polls up to the manager's wait poll interval, the same interval as the peers', where the store announces no
        // releases
        held.put(key, manager.waitForLock(LockSpec.of(key).fair(fair), ChronoUnit.FOREVER.getDuration()));
    }

    @Override
    public void close() throws Exception {
        manager.close();
    }
}
