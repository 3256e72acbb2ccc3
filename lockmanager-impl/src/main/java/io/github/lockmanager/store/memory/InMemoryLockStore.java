package io.github.lockmanager.store.memory;

import io.github.lockmanager.LockMode;
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
import java.util.function.UnaryOperator;

/**
 * A store in this JVM's memory: the embedded default, for one process, tests and demos. Several lock managers
 * in one JVM may share an instance and then contend exactly as nodes of a cluster do. Leases are measured by
 * the {@link TimeSource} given (share a {@code ManualTimeSource} of {@code lockmanager-tck} with the managers to move
 * time in tests). Fencing tokens come from one counter, so they increase across all keys. It
 * {@linkplain #supportsModes() supports every lock mode}: a key may have several holders. Nothing survives the
 * JVM. {@link #close()} does nothing: the records stay for whoever else shares the instance.
 */
public final class InMemoryLockStore implements LockStore {
    private final TimeSource time;
    private final Map<LockKey, Entry> records = new ConcurrentHashMap<>();
    private final AtomicLong fencingTokens = new AtomicLong();

    private static final LockMode[] MODES = LockMode.values();

    /**
     * One holder of a key, as compact as it can be kept (a held lock costs heap for as long as it is held): the
     * {@link LockRecord} a caller sees is made from it on demand. The holders of one key form an immutable chain
     * through {@code next}, replaced as a whole under the map's lock for the key; an exclusive key has a chain of
     * one. The mode is kept as a byte so that an entry still fits in 64 bytes.
     */
    private record Entry(LockHandle handle, String nodeId, String threadName, long lockTimeMillis,
                         long expiresAtNanos, long expiresAtMillis, long fencingToken, boolean aborted, byte mode,
                         Entry next) {
        boolean isLive(long nowNanos) {
            return expiresAtNanos - nowNanos > 0;
        }

        LockMode lockMode() {
            return MODES[mode];
        }

        LockRecord record() {
            return new LockRecord(handle, nodeId, threadName, Instant.ofEpochMilli(lockTimeMillis),
                    Instant.ofEpochMilli(expiresAtMillis), aborted ? LockStatus.ABORT : LockStatus.RUNNING, fencingToken,
                    lockMode());
        }

        Entry renewedUntil(long nanos, long millis) {
            return new Entry(handle, nodeId, threadName, lockTimeMillis, nanos, millis, fencingToken, aborted, mode, next);
        }

        Entry abortMarked() {
            return new Entry(handle, nodeId, threadName, lockTimeMillis, expiresAtNanos, expiresAtMillis, fencingToken,
                    true, mode, next);
        }

        Entry withNext(Entry next) {
            return next == this.next ? this : new Entry(handle, nodeId, threadName, lockTimeMillis, expiresAtNanos,
                    expiresAtMillis, fencingToken, aborted, mode, next);
        }
    }

    /** The live holders of {@code chain}, with {@code change} applied to each; {@code null} if none is left. */
    private static Entry rebuild(Entry chain, long nowNanos, UnaryOperator<Entry> change) {
        if (chain == null) {
            return null;
        }
        Entry rest = rebuild(chain.next(), nowNanos, change);
        if (!chain.isLive(nowNanos)) {
            return rest;
        }
        Entry changed = change.apply(chain);
        return changed == null ? rest : changed.withNext(rest);
    }

    private static Entry find(Entry chain, LockHandle handle, long nowNanos) {
        for (Entry e = chain; e != null; e = e.next()) {
            if (e.isLive(nowNanos) && e.handle().equals(handle)) {
                return e;
            }
        }
        return null;
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
        // read before the key's lock is taken: other callers of the key wait for as little as possible
        long lockTime = time.now().toEpochMilli();
        LockMode mode = request.mode();
        LockHandle handle = request.handle();
        Entry[] answer = new Entry[1];
        records.compute(request.key(), (key, current) -> {
            Entry live = rebuild(current, now, UnaryOperator.identity());
            for (Entry e = live; e != null; e = e.next()) {
                // the SPI's rule for retried writes: our own record is ours, never "held by someone else"
                if (e.handle().equals(handle) || e.lockMode().conflictsWith(mode)) {
                    answer[0] = e;
                    return live;
                }
            }
            answer[0] = new Entry(handle, request.nodeId(), request.threadName(), lockTime, now + lease.toNanos(),
                    lockTime + lease.toMillis(), fencingTokens.incrementAndGet(), false, (byte) mode.ordinal(), live);
            return answer[0];
        });
        Entry found = answer[0];
        return found.handle().equals(handle) ? AcquireResult.acquired(found.record())
                : AcquireResult.heldBy(found.record());
    }

    @Override
    public Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) {
        Map<LockHandle, HoldState> answers = new LinkedHashMap<>();
        for (LockHandle handle : handles) {
            long now = time.nanoTime();
            HoldState[] answer = {HoldState.LOST};
            records.computeIfPresent(handle.key(), (key, current) -> rebuild(current, now, e -> {
                if (!e.handle().equals(handle)) {
                    return e;
                }
                answer[0] = stateOf(e);
                return e.renewedUntil(now + lease.toNanos(), time.now().plus(lease).toEpochMilli());
            }));
            answers.put(handle, answer[0]);
        }
        return answers;
    }

    @Override
    public Map<LockHandle, HoldState> check(List<LockHandle> handles) {
        Map<LockHandle, HoldState> answers = new LinkedHashMap<>();
        long now = time.nanoTime();
        for (LockHandle handle : handles) {
            Entry own = find(records.get(handle.key()), handle, now);
            answers.put(handle, own != null ? stateOf(own) : HoldState.LOST);
        }
        return answers;
    }

    private static HoldState stateOf(Entry entry) {
        return HoldState.of(true, entry.aborted());
    }

    @Override
    public boolean release(LockHandle handle) {
        Entry chain = records.get(handle.key());
        if (chain == null) {
            return false;
        }
        if (chain.next() == null && chain.handle().equals(handle) && chain.isLive(time.nanoTime())
                && records.remove(handle.key(), chain)) {
            // the common case, a key of one holder, without rebuilding its chain
            return true;
        }
        boolean[] released = {false};
        records.computeIfPresent(handle.key(), (key, current) -> rebuild(current, time.nanoTime(), e -> {
            if (!e.handle().equals(handle)) {
                return e;
            }
            released[0] = true;
            return null;
        }));
        return released[0];
    }

    @Override
    public Optional<LockRecord> read(LockKey key) {
        Entry live = rebuild(records.get(key), time.nanoTime(), UnaryOperator.identity());
        return live != null ? Optional.of(live.record()) : Optional.empty();
    }

    @Override
    public List<LockRecord> list() {
        long now = time.nanoTime();
        purgeIdleRecords();
        List<LockRecord> live = new ArrayList<>(records.size());
        for (Entry chain : records.values()) {
            for (Entry e = chain; e != null; e = e.next()) {
                if (e.isLive(now)) {
                    live.add(e.record());
                }
            }
        }
        return live;
    }

    @Override
    public boolean markAbort(LockKey key) {
        long now = time.nanoTime();
        boolean[] marked = {false};
        records.computeIfPresent(key, (k, current) -> rebuild(current, now, e -> {
            marked[0] = true;
            return e.abortMarked();
        }));
        return marked[0];
    }

    /** Removes expired records; released ones are removed at once. Tokens come from one counter for all keys. */
    @Override
    public int purgeIdleRecords() {
        long now = time.nanoTime();
        int before = records.size();
        // ConcurrentHashMap removes an entry here only if it is still the chain that was tested
        records.entrySet().removeIf(e -> rebuild(e.getValue(), now, UnaryOperator.identity()) == null);
        return Math.max(0, before - records.size());
    }

    @Override
    public boolean supportsModes() {
        return true;
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
