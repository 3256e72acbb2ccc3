package io.github.lockmanager.store.memory;

import io.github.lockmanager.LockStatus;
import io.github.lockmanager.Require;
import io.github.lockmanager.TimeSource;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A store in this JVM's memory: the embedded default, for one process, tests and demos. Several lock managers
 * in one JVM may share an instance and then contend exactly as nodes of a cluster do. Leases are measured by
 * the {@link TimeSource} given (share a {@code ManualTimeSource} of {@code lockmanager-tck} with the managers to move
 * time in tests). Fencing tokens come from one counter, so they increase across all keys. Nothing survives the
 * JVM. {@link #close()} does nothing: the records stay for whoever else shares the instance.
 */
public final class InMemoryLockStore implements LockStore {
    private final TimeSource time;
    private final Map<LockKey, Entry> records = new ConcurrentHashMap<>();
    private final AtomicLong fencingTokens = new AtomicLong();

    /**
     * A lock, as compact as it can be kept (a held lock costs heap for as long as it is held): the
     * {@link LockRecord} a caller sees is made from it on demand.
     */
    private record Entry(LockHandle handle, String nodeId, String threadName, long lockTimeMillis,
                         long expiresAtNanos, long expiresAtMillis, long fencingToken, boolean aborted) {
        boolean isLive(long nowNanos) {
            return expiresAtNanos - nowNanos > 0;
        }

        boolean isLiveAndOwnedBy(LockHandle handle, long nowNanos) {
            return isLive(nowNanos) && this.handle.equals(handle);
        }

        LockRecord record() {
            return new LockRecord(handle, nodeId, threadName, Instant.ofEpochMilli(lockTimeMillis),
                    Instant.ofEpochMilli(expiresAtMillis), aborted ? LockStatus.ABORT : LockStatus.RUNNING, fencingToken);
        }

        Entry renewedUntil(long nanos, long millis) {
            return new Entry(handle, nodeId, threadName, lockTimeMillis, nanos, millis, fencingToken, aborted);
        }

        Entry abortMarked() {
            return new Entry(handle, nodeId, threadName, lockTimeMillis, expiresAtNanos, expiresAtMillis, fencingToken, true);
        }
    }

    /** A store on the JVM's clocks. */
    public InMemoryLockStore() {
        this(TimeSource.system());
    }

    public InMemoryLockStore(TimeSource time) {
        Require.notNull(time, "time source");
        this.time = time;
    }

    @Override
    public void initialize() {
        // nothing to create
    }

    @Override
    public AcquireResult acquire(LockRequest request, Duration lease) {
        long now = time.nanoTime();
        Entry entry = records.compute(request.key(), (key, current) -> {
            if (current != null && current.isLive(now)) {
                return current;
            }
            long lockTime = time.now().toEpochMilli();
            return new Entry(request.handle(), request.nodeId(), request.threadName(), lockTime, now + lease.toNanos(),
                    lockTime + lease.toMillis(), fencingTokens.incrementAndGet(), false);
        });
        // the SPI's rule for retried writes: our own record is ours, never "held by someone else"
        return AcquireResult.fromRecord(request.handle(), entry.record());
    }

    @Override
    public Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) {
        Map<LockHandle, HoldState> answers = new LinkedHashMap<>();
        for (LockHandle handle : handles) {
            long now = time.nanoTime();
            HoldState[] answer = {HoldState.LOST};
            records.computeIfPresent(handle.key(), (key, current) -> {
                if (!current.isLiveAndOwnedBy(handle, now)) {
                    return current.isLive(now) ? current : null;
                }
                answer[0] = stateOf(current);
                return current.renewedUntil(now + lease.toNanos(), time.now().plus(lease).toEpochMilli());
            });
            answers.put(handle, answer[0]);
        }
        return answers;
    }

    @Override
    public Map<LockHandle, HoldState> check(List<LockHandle> handles) {
        Map<LockHandle, HoldState> answers = new LinkedHashMap<>();
        long now = time.nanoTime();
        for (LockHandle handle : handles) {
            Entry current = records.get(handle.key());
            answers.put(handle, current != null && current.isLiveAndOwnedBy(handle, now)
                    ? stateOf(current) : HoldState.LOST);
        }
        return answers;
    }

    private static HoldState stateOf(Entry entry) {
        return HoldState.of(true, entry.aborted());
    }

    @Override
    public boolean release(LockHandle handle) {
        while (true) {
            Entry current = records.get(handle.key());
            if (current == null || !current.handle().equals(handle)) {
                return false;
            }
            // removed only if still the entry looked at: a renewal or an abort mark may have replaced it, and then
            // the new entry is looked at again; an expired one of ours goes too, but was no longer ours
            if (records.remove(handle.key(), current)) {
                return current.isLive(time.nanoTime());
            }
        }
    }

    @Override
    public Optional<LockRecord> read(LockKey key) {
        Entry current = records.get(key);
        return current != null && current.isLive(time.nanoTime()) ? Optional.of(current.record()) : Optional.empty();
    }

    @Override
    public List<LockRecord> list() {
        long now = time.nanoTime();
        purgeIdleRecords();
        List<LockRecord> live = new ArrayList<>(records.size());
        for (Entry entry : records.values()) {
            if (entry.isLive(now)) {
                live.add(entry.record());
            }
        }
        return live;
    }

    @Override
    public boolean markAbort(LockKey key) {
        long now = time.nanoTime();
        boolean[] marked = {false};
        records.computeIfPresent(key, (k, current) -> {
            if (!current.isLive(now)) {
                return null;
            }
            marked[0] = true;
            return current.abortMarked();
        });
        return marked[0];
    }

    /** Removes expired records; released ones are removed at once. Tokens come from one counter for all keys. */
    @Override
    public int purgeIdleRecords() {
        long now = time.nanoTime();
        int before = records.size();
        // ConcurrentHashMap removes an entry here only if it is still the expired one that was tested
        records.entrySet().removeIf(e -> !e.getValue().isLive(now));
        return Math.max(0, before - records.size());
    }

    @Override
    public boolean isInMemory() {
        return true;
    }

    @Override
    public TimeSource leaseClock() {
        return time;
    }

    @Override
    public void close() {
        // the records belong to every manager sharing this instance
    }

    @Override
    public String toString() {
        return "InMemoryLockStore[" + records.size() + " records]";
    }
}
