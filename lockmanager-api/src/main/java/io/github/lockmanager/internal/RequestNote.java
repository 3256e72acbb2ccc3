package io.github.lockmanager.internal;

import io.github.lockmanager.LockMode;

import java.util.Arrays;

/**
 * Not an API: the engine writes it and the admin tools read it.
 *
 * <p>What a request record keeps in its holder-name field ({@link io.github.lockmanager.spi.LockRecord#threadName()}),
 * since the record itself is one of the permits of the key's requests like every other request: the mode asked
 * for, the serials of the locks its owner held when it asked (what deadlock detection follows), and the owner's name.
 * Written as {@code 1|<mode text>|<path separator's char code>|<serials, comma-separated>|<owner name>} (the separator empty for a
 * plain key, {@code *} for serials not known); the leading number is the format's
 * version, and a note this release cannot read ({@link #read} answers {@link #UNREADABLE}) counts as an exclusive
 * request whose holds are not known, which blocks every later request and is never part of a cycle.
 *
 * @param mode    the mode asked for
 * @param permits the permits asked for, with {@link LockMode#PERMIT}
 * @param separator for a hierarchical path, its separator (the request waits for the path's ancestors too); else 0
 * @param held    the serials of the owner's holds, in its node's owner tokens; {@code null} if not known
 * @param owner   the owner's name
 */
public record RequestNote(LockMode mode, int permits, char separator, long[] held, String owner) {
    /** The longest note: the shortest holder-name field of the stores (a JDBC column of 256 chars). */
    public static final int MAX_LENGTH = 256;
    public static final String VERSION = "1";
    public static final RequestNote UNREADABLE = new RequestNote(LockMode.EXCLUSIVE, 0, (char) 0, null, "?");

    public String write() {
        String head = VERSION + '|' + mode.text(permits) + '|' + (separator == 0 ? "" : Integer.toString(separator)) + '|';
        String serials = held == null ? "*" : joined(held);
        String owned = head + serials + '|';
        if (owned.length() + 1 > MAX_LENGTH) {
            // too many holds to write: the request takes part in no cycle, rather than in a wrong one
            owned = head + "*|";
        }
        String name = owner.length() > MAX_LENGTH - owned.length() ? owner.substring(0, MAX_LENGTH - owned.length())
                : owner;
        return owned + name;
    }

    public static RequestNote read(String text) {
        String[] parts = text.split("\\|", 5);
        if (parts.length != 5 || !parts[0].equals(VERSION) ) {
            return UNREADABLE;
        }
        try {
            String mode = parts[1];
            int colon = mode.indexOf(':');
            LockMode asked = LockMode.valueOf(colon < 0 ? mode : mode.substring(0, colon));
            int permits = colon < 0 ? 0 : Integer.parseInt(mode.substring(colon + 1));
            char separator = parts[2].isEmpty() ? 0 : (char) Integer.parseInt(parts[2]);
            long[] held = parts[3].equals("*") ? null
                    : parts[3].isEmpty() ? new long[0]
                    : Arrays.stream(parts[3].split(",")).mapToLong(Long::parseLong).toArray();
            return new RequestNote(asked, permits, separator, held, parts[4]);
        } catch (IllegalArgumentException unreadable) {
            return UNREADABLE;
        }
    }

    /** Whether the owner held the lock whose owner token ends in {@code serial}. */
    public boolean holds(long serial) {
        if (held != null) {
            for (long each : held) {
                if (each == serial) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String joined(long[] serials) {
        StringBuilder text = new StringBuilder();
        for (long serial : serials) {
            if (!text.isEmpty()) {
                text.append(',');
            }
            text.append(serial);
        }
        return text.toString();
    }
}
