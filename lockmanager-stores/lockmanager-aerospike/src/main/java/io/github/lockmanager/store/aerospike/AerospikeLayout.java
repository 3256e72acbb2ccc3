package io.github.lockmanager.store.aerospike;

import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.LockKey;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * Where locks live in Aerospike: one record per key, which never moves, so that every decision about the key is one
 * atomic operation on it. Set names come from level, farm and the store's suffix: {@code DC#<farmId>#<suffix>} and
 * {@code XDC#<suffix>}; the user key is {@code <clientId>#<key>}. Bins:
 * <ul>
 *   <li>{@link #HOLDERS}: a map from each holder's owner token to its entry, the list
 *       {@code [tag, fencing token, node, thread, lock time ms, lease ms]}, and for a permit holder its number of
 *       permits after them. The tag is
 *       {@code mode code * 2^44 + lease end in ms} ({@link LockMode#code()}) on the server's clock, so that the live holders of one mode are
 *       one value range of the map, which the server counts and cleans up inside the acquiring operation.</li>
 *   <li>{@link #FENCE}: the last fencing token given for the key; a record without it starts at
 *       {@code 1000 * the server's clock in ms}.</li>
 *   <li>{@link #ABORT}: the fencing token that was last when an abort was asked: a holder whose token is not above it
 *       is asked to abort.</li>
 *   <li>{@link #PERMITS}: the number of permits of the key's latest permit holder, which every live permit holder
 *       shares: a permit is granted only while the key has no live permit holder or this number is the request's.</li>
 *   <li>{@link #RELEASED_BY}: the owner token of the last release written with data changes; any other bin is the
 *       caller's data ({@link AerospikeRecordData}).</li>
 * </ul>
 * The record's TTL is the store's idle record retention plus the lease, from its last grant or renewal: it outlives
 * every live holder, and a key nobody uses goes away with its counter.
 */
final class AerospikeLayout {
    static final int MAX_SET_NAME_BYTES = 63;
    static final int MAX_BIN_NAME_BYTES = 15;

    static final String HOLDERS = "holders";
    static final String FENCE = "fence";
    static final String ABORT = "abort";
    /** The owner token of the last release made with data changes ({@link AerospikeRecordData}). */
    static final String RELEASED_BY = "releasedby";
    static final String PERMITS = "permits";
    static final List<String> BINS = List.of(HOLDERS, FENCE, ABORT, RELEASED_BY, PERMITS);

    /** Positions in a holder's entry. */
    static final int TAG = 0;
    static final int TOKEN = 1;
    static final int NODE = 2;
    static final int THREAD = 3;
    static final int LOCK_TIME = 4;
    static final int LEASE = 5;
    /** In a permit holder's entry only. */
    static final int PERMITS_AT = 6;

    /** A tag's lease end takes its low 44 bits: milliseconds to the year 2527. */
    static final int MODE_SHIFT = 44;
    static final long TIME_MASK = (1L << MODE_SHIFT) - 1;

    private AerospikeLayout() {
    }

    /** The first tag of {@code mode}: every holder in it has a tag from here to {@code modeBase(next mode)}. */
    static long modeBase(LockMode mode) {
        return (long) mode.code() << MODE_SHIFT;
    }

    static LockMode modeOf(long tag) {
        return LockMode.ofCode((int) (tag >>> MODE_SHIFT));
    }

    static long endOf(long tag) {
        return tag & TIME_MASK;
    }

    static String setName(LockKey key, String suffix) {
        return key.level() == LockLevel.DC ? dcSet(key.farmId(), suffix) : xdcSet(suffix);
    }

    static String dcSet(String farmId, String suffix) {
        return "DC#" + farmId + "#" + suffix;
    }

    static String xdcSet(String suffix) {
        return "XDC#" + suffix;
    }

    /**
     * {@code <clientId>#<key>}; for a {@linkplain LockKey#isRequests() requests key}, {@link #REQUESTS_USER_KEY} before
     * it (no client id is empty or holds '#', so no lock's user key starts so).
     */
    static String lockUserKey(LockKey key) {
        String userKey = key.clientId() + LockKey.SEPARATOR + key.name();
        return key.isRequests() ? REQUESTS_USER_KEY + userKey : userKey;
    }

    /** What the user key of a requests key starts with. */
    static final String REQUESTS_USER_KEY = "#" + LockKey.REQUESTS_PREFIX + "#";

    /** The lock key of a record in {@code set}, or {@code null} if the set or user key is not this store's. */
    static LockKey lockKey(String set, String suffix, String userKey) {
        if (userKey.startsWith(REQUESTS_USER_KEY)) {
            LockKey lock = lockKey(set, suffix, userKey.substring(REQUESTS_USER_KEY.length()));
            return lock == null ? null : lock.requests();
        }
        int sep = userKey.indexOf(LockKey.SEPARATOR);
        if (sep <= 0) {
            return null;
        }
        String clientId = userKey.substring(0, sep);
        String name = userKey.substring(sep + 1);
        if (set.equals(xdcSet(suffix))) {
            return LockKey.xdc(clientId, name);
        }
        String tail = "#" + suffix;
        if (set.startsWith("DC#") && set.endsWith(tail) && set.length() > 3 + tail.length()) {
            return LockKey.dc(set.substring(3, set.length() - tail.length()), clientId, name);
        }
        return null;
    }

    /** Refuses a set name Aerospike would refuse, saying why. */
    static String checkSetName(String set) {
        if (set.indexOf(':') >= 0 || set.indexOf(';') >= 0) {
            throw new IllegalArgumentException("Aerospike set name '" + set + "' must not contain ':' or ';' (the "
                    + "server's info protocol separates with them). Use another set suffix or farm id.");
        }
        int bytes = set.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_SET_NAME_BYTES) {
            throw new IllegalArgumentException("Aerospike set name '" + set + "' is " + bytes + " bytes; the limit is "
                    + MAX_SET_NAME_BYTES + ". Use a shorter set suffix or farm id.");
        }
        return set;
    }

    static void checkBinNames() {
        for (String bin : BINS) {
            if (bin.getBytes(StandardCharsets.UTF_8).length > MAX_BIN_NAME_BYTES) {
                throw new IllegalStateException("bin name '" + bin + "' exceeds Aerospike's " + MAX_BIN_NAME_BYTES
                        + " bytes");
            }
        }
    }

    /**
     * The record TTL after a grant or renewal with {@code lease}, in whole seconds: the retention plus the lease
     * rounded up plus one second, as the server counts expiry in whole seconds.
     */
    static int ttlSeconds(Duration retention, Duration lease) {
        long seconds = retention.toSeconds() + (lease.toMillis() + 999) / 1000 + 1;
        if (seconds > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("lease " + lease + " is too long for an Aerospike TTL");
        }
        return (int) seconds;
    }
}
