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

    ManagerContender(LockStore store, String node, String client) throws Exception {
        manager = LockManagerBuilder.newBuilder().store(store).clientId(client).nodeId(node).lease(LEASE)
                .waitPollInterval(Contender.POLL).build();
    }

    @Override
    public String name() {
        return "lockmanager";
    }

    @Override
    public boolean tryLock(String key) throws Exception {
        try {
            held.put(key, manager.lock(key));
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
        held.put(key, manager.waitForLock(LockSpec.of(key), ChronoUnit.FOREVER.getDuration()));
    }

    @Override
    public void close() throws Exception {
        manager.close();
    }
}
