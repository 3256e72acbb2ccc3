package io.github.lockmanager.store.aerospike;

import com.aerospike.client.Record;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import static io.github.lockmanager.store.aerospike.AerospikeLayout.ABORT;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.HOLDERS;

/**
 * Reads a key's record ({@link AerospikeLayout}) as the holders it lists: {@link #NOW} is the bin under which the
 * store's reads return the server's clock, by which a holder is live while its lease has not ended.
 */
final class AerospikeEntries {
    /** The name under which a read returns {@link AerospikeExpressions#NOW}; no bin of the record has it. */
    static final String NOW = "now";

    private AerospikeEntries() {
    }

    /**
     * The holders in a record read with its {@link #NOW}: only the live ones, or all (for an operator's inspection),
     * exclusive holders first, then by token.
     */
    static List<LockRecord> holders(LockKey key, Record record, boolean liveOnly) {
        if (record == null) {
            return List.of();
        }
        Map<?, ?> entries = lastMap(record);
        long now = last(record, NOW);
        long abortMark = last(record, ABORT);
        List<LockRecord> holders = new ArrayList<>(entries.size());
        for (Map.Entry<?, ?> entry : entries.entrySet()) {
            LockRecord holder = toRecord(key, (String) entry.getKey(), (List<?>) entry.getValue(), abortMark);
            if (!liveOnly || holder.expirationTime().toEpochMilli() >= now) {
                holders.add(holder);
            }
        }
        holders.sort(Comparator.comparing((LockRecord h) -> h.mode() != LockMode.EXCLUSIVE)
                .thenComparingLong(LockRecord::fencingToken));
        return holders;
    }

    /** An entry with the request's details; its tag, token and lock time are the server's to set. */
    static List<Object> template(LockRequest request, Duration lease) {
        return request.mode() == LockMode.PERMIT
                ? Arrays.asList(0L, 0L, request.nodeId(), request.threadName(), 0L, lease.toMillis(),
                (long) request.permits())
                : Arrays.asList(0L, 0L, request.nodeId(), request.threadName(), 0L, lease.toMillis());
    }

    /** The holder {@code token}'s entry describes. */
    static LockRecord toRecord(LockKey key, String token, List<?> entry, long abortMark) {
        long tag = number(entry.get(AerospikeLayout.TAG));
        long fence = number(entry.get(AerospikeLayout.TOKEN));
        return new LockRecord(new LockHandle(key, token), (String) entry.get(AerospikeLayout.NODE),
                (String) entry.get(AerospikeLayout.THREAD),
                Instant.ofEpochMilli(number(entry.get(AerospikeLayout.LOCK_TIME))),
                Instant.ofEpochMilli(AerospikeLayout.endOf(tag)),
                fence <= abortMark ? LockStatus.ABORT : LockStatus.RUNNING, fence, AerospikeLayout.modeOf(tag),
                entry.size() > AerospikeLayout.PERMITS_AT ? (int) number(entry.get(AerospikeLayout.PERMITS_AT)) : 0);
    }

    /** The holders map the record carries; the last result when the client gave one per operation. */
    static Map<?, ?> lastMap(Record record) {
        Object value = lastValue(record, HOLDERS);
        return value instanceof Map<?, ?> map ? map : Map.of();
    }

    /** The last long the record carries for {@code bin}, 0 if none. */
    static long last(Record record, String bin) {
        Object value = lastValue(record, bin);
        return value instanceof Number number ? number.longValue() : 0;
    }

    /** Whether the record carries {@code true} for {@code bin}: expression reads give booleans. */
    static boolean isTrue(Record record, String bin) {
        return Boolean.TRUE.equals(lastValue(record, bin));
    }

    /**
     * The value the record carries for {@code bin}: when several operations of one call name the same bin, the
     * client gives a list of their results in order, and the last is the read that follows the writes. No bin of
     * the layout holds a list itself.
     */
    private static Object lastValue(Record record, String bin) {
        Object value = record == null ? null : record.getValue(bin);
        if (value instanceof List<?> results) {
            return results.isEmpty() ? null : results.get(results.size() - 1);
        }
        return value;
    }

    private static long number(Object value) {
        return value == null ? 0 : ((Number) value).longValue();
    }
}
