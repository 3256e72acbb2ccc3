package io.github.lockmanager.store.redis;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the holder entries the scripts answer with ({@link RedisScripts}) into records, and writes the part of an
 * entry the client gives. Stateless.
 */
final class RedisEntries {
    private RedisEntries() {
    }

    /** The mode part of an entry: the mode's code, and for a permit holder a colon and its number of permits. */
    static String mode(LockMode mode, int permits) {
        return mode == LockMode.PERMIT ? mode.code() + ":" + permits : Integer.toString(mode.code());
    }

    /** The client's part of an entry: the node id's length, the node id and the thread name. */
    static String tail(String nodeId, String threadName) {
        return nodeId.length() + " " + nodeId + threadName;
    }

    /**
     * The record of the entry {@code entry} of {@code owner}, asked to abort when its token is at most
     * {@code abortMark}.
     *
     * @throws IllegalStateException if the entry is not one the scripts write (a foreign writer changed the hash)
     */
    static LockRecord record(LockKey key, String owner, String entry, long abortMark) {
        try {
            int space = entry.indexOf(' ');
            int colon = entry.indexOf(':');
            boolean permit = colon > 0 && colon < space;
            int mode = Integer.parseInt(entry, 0, permit ? colon : space, 10);
            int permits = permit ? Integer.parseInt(entry, colon + 1, space, 10) : 0;
            int[] at = {space + 1};
            long leaseEnd = number(entry, at);
            long lockTime = number(entry, at);
            long token = number(entry, at);
            int nodeLength = (int) number(entry, at);
            String nodeId = entry.substring(at[0], at[0] + nodeLength);
            String threadName = entry.substring(at[0] + nodeLength);
            return new LockRecord(new LockHandle(key, owner), nodeId, threadName, Instant.ofEpochMilli(lockTime),
                    Instant.ofEpochMilli(leaseEnd), token <= abortMark ? LockStatus.ABORT : LockStatus.RUNNING, token,
                    LockMode.ofCode(mode), permits);
        } catch (RuntimeException e) {
            throw new IllegalStateException("the Redis hash of lock '" + key.name() + "' holds an entry this store did"
                    + " not write for owner '" + owner + "': '" + entry + "'", e);
        }
    }

    /** The lease end of an entry. */
    static long leaseEnd(String entry) {
        int[] at = {entry.indexOf(' ') + 1};
        return number(entry, at);
    }

    /**
     * The holders a {@code READ} answer lists ({@code now, abort mark, field, entry, ...}).
     *
     * @param liveOnly leave out those whose lease has ended on the server's clock
     */
    static List<LockRecord> holders(LockKey key, List<?> answer, boolean liveOnly) {
        long now = (Long) answer.get(0);
        long abortMark = (Long) answer.get(1);
        List<LockRecord> holders = new ArrayList<>((answer.size() - 2) / 2);
        for (int i = 2; i + 1 < answer.size(); i += 2) {
            String entry = (String) answer.get(i + 1);
            if (!liveOnly || leaseEnd(entry) > now) {
                holders.add(record(key, RedisLayout.ownerOf((String) answer.get(i)), entry, abortMark));
            }
        }
        return holders;
    }

    /** The decimal number at {@code at[0]}, which moves past it and the space after it. */
    private static long number(String entry, int[] at) {
        int i = at[0];
        long n = 0;
        int start = i;
        for (; i < entry.length() && entry.charAt(i) != ' '; i++) {
            char c = entry.charAt(i);
            if (c < '0' || c > '9') {
                throw new IllegalArgumentException("not a digit at " + i);
            }
            n = Math.addExact(Math.multiplyExact(n, 10), c - '0');
        }
        if (i == start || i == entry.length()) {
            throw new IllegalArgumentException("no number at " + start);
        }
        at[0] = i + 1;
        return n;
    }
}
