package io.github.lockmanager.store.aerospike;

import io.github.lockmanager.LockLevel;
import io.github.lockmanager.spi.LockKey;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * Where locks live in Aerospike. Set names come from level, farm and the store's suffix:
 * {@code DC#<farmId>#<suffix>} and {@code XDC#<suffix>}. In a set, the lock record of a key has the user key
 * {@code <clientId>#<key>} and a record TTL; its fencing counter record has the user key
 * {@code #fence#<clientId>#<key>} and the store's idle record retention as TTL.
 *
 * <p>A key held in modes other than exclusive has, instead of an exclusive lock record, a <em>marker</em> under the
 * lock record's user key: {@link #OWNER} is {@link #SHARED_OWNER}, {@link #HOLDERS} maps each holder's owner token to
 * its mode's name, {@link #TOKEN} is the holders' fencing token, and it never expires (the last holder deletes it).
 * Each such holder also has a holder record with the usual bins plus {@link #MODE} and its own TTL, under
 * {@code #holder#<token length>#<token><clientId>#<key>}. No lock record's user key starts with {@code '#'}, client
 * ids being non-empty and free of it.
 */
final class AerospikeLayout {
    static final int MAX_SET_NAME_BYTES = 63;
    static final int MAX_BIN_NAME_BYTES = 15;

    static final String OWNER = "owner";
    static final String NODE = "node";
    static final String THREAD = "thread";
    static final String LOCK_TIME = "locktime";
    static final String LEASE = "lease";
    static final String STATUS = "status";
    static final String TOKEN = "token";
    static final String FENCE = "fence";
    static final String MODE = "mode";
    static final String HOLDERS = "holders";
    static final List<String> BINS = List.of(OWNER, NODE, THREAD, LOCK_TIME, LEASE, STATUS, TOKEN, FENCE, MODE, HOLDERS);

    /** The owner of a key's marker, while holders in other modes than exclusive hold it. */
    static final String SHARED_OWNER = "~shared";

    private static final String COUNTER_PREFIX = "#fence#";
    private static final String HOLDER_PREFIX = "#holder#";

    private AerospikeLayout() {
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

    static String lockUserKey(LockKey key) {
        return key.clientId() + LockKey.SEPARATOR + key.name();
    }

    static String counterUserKey(LockKey key) {
        return COUNTER_PREFIX + lockUserKey(key);
    }

    /** The user key of the record of one holder of {@code key}: unambiguous for any owner token. */
    static String holderUserKey(LockKey key, String ownerToken) {
        return HOLDER_PREFIX + ownerToken.length() + LockKey.SEPARATOR + ownerToken + lockUserKey(key);
    }

    /** Whether a record's user key is a lock record's (exclusive or marker), not a counter's or a holder's. */
    static boolean isLockUserKey(String userKey) {
        return !userKey.isEmpty() && userKey.charAt(0) != LockKey.SEPARATOR;
    }

    /** The lock key of a record in {@code set}, or {@code null} if the set is not one of this store's lock sets. */
    static LockKey lockKey(String set, String suffix, String userKey) {
        int sep = userKey.indexOf(LockKey.SEPARATOR);
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
     * The record TTL for a lease, in whole seconds: rounded up, plus one second because the server counts expiry
     * in whole seconds, so that a record never expires before its lease. Never 0 (namespace default) or -1
     * (never).
     */
    static int ttlSeconds(Duration lease) {
        long millis = lease.toMillis();
        long seconds = (millis + 999) / 1000 + 1;
        if (seconds > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("lease " + lease + " is too long for an Aerospike TTL");
        }
        return (int) Math.max(2, seconds);
    }
}
