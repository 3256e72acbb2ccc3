package io.github.lockmanager.bench;

import org.springframework.integration.support.locks.LockRegistry;

import java.time.Duration;
import java.util.function.Consumer;

/** A Spring Integration {@code LockRegistry} as {@link PeerBench} drives it, waiting by its own polling. */
abstract class RegistryContender implements Contender {
    private final String name;
    private final LockRegistry registry;
    private final Consumer<Duration> idleBetweenTries;

    RegistryContender(String name, LockRegistry registry, Consumer<Duration> idleBetweenTries) {
        this.name = name;
        this.registry = registry;
        this.idleBetweenTries = idleBetweenTries;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean tryLock(String key) {
        return registry.obtain(key).tryLock();
    }

    @Override
    public void unlock(String key) {
        registry.obtain(key).unlock();
    }

    @Override
    public void lockWaiting(String key, Duration interval) {
        idleBetweenTries.accept(interval);
        registry.obtain(key).lock();
    }
}
