package io.github.lockmanager.bench;

import io.github.lockmanager.LockException;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.store.memory.InMemoryLockStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Figures 1 and 2 (in memory): a re-entrant lock+unlock against {@link ReentrantLock}, and a fresh uncontended
 * lock+unlock on the in-memory store against the map put/remove it boils down to, with the clock reading it needs.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ReentryBenchmark {
    private LockManager manager;
    private final ReentrantLock reentrantLock = new ReentrantLock();
    private final Map<String, String> map = new ConcurrentHashMap<>();

    @Setup(Level.Trial)
    public void setUp() throws LockException {
        manager = LockManagerBuilder.newBuilder().store(new InMemoryLockStore()).nodeId("jmh").build();
        manager.lock("held");
        reentrantLock.lock();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        // given back first: close() would otherwise wait its shutdown timeout for this very thread to unlock
        manager.unlock("held");
        reentrantLock.unlock();
        manager.close();
    }

    @Benchmark
    public void reentrantLockManager() throws LockException {
        manager.lock("held");
        manager.unlock("held");
    }

    @Benchmark
    public void reentrantJdkLock() {
        reentrantLock.lock();
        reentrantLock.unlock();
    }

    @Benchmark
    public void inMemoryLockUnlock() throws LockException {
        manager.lock("free");
        manager.unlock("free");
    }

    @Benchmark
    public String mapPutRemove() {
        map.put("free", "owner");
        return map.remove("free");
    }

    /** The one reading of the lease clock that a new acquisition makes; of all figure 2's parts, its cost varies most. */
    @Benchmark
    public long clockReading() {
        return System.nanoTime();
    }
}
