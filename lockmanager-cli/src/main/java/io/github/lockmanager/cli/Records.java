package io.github.lockmanager.cli;

import io.github.lockmanager.LockWaiter;
import io.github.lockmanager.spi.LockRecord;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** Lock records as an aligned table for people ({@code LockJson} writes them for scripts). */
final class Records {
    private static final String[] HEADERS = {"KEY", "LEVEL", "MODE", "NODE", "THREAD", "TOKEN", "LOCKED AT",
            "EXPIRES IN", "STATUS"};
    private static final String CLIENT = "CLIENT";

    private Records() {
    }

    /** The records as a table; {@code withClient} adds a first column naming each record's client. */
    static void table(List<LockRecord> records, Instant now, boolean withClient, PrintWriter out) {
        String[][] rows = new String[records.size() + 1][];
        rows[0] = withClient ? prepend(CLIENT, HEADERS) : HEADERS;
        for (int i = 0; i < records.size(); i++) {
            LockRecord r = records.get(i);
            String[] row = {r.key().name(), r.key().level().name(), r.mode().text(r.permits()), r.nodeId(),
                    r.threadName(), Long.toString(r.fencingToken()), r.lockTime().toString(),
                    expiresIn(r.expirationTime(), now), r.status().name()};
            rows[i + 1] = withClient ? prepend(r.key().clientId(), row) : row;
        }
        aligned(rows, out);
    }

    private static final String[] WAITER_HEADERS = {"KEY", "LEVEL", "MODE", "NODE", "OWNER", "WAITING SINCE", "PLACE"};

    /** Fair waiters' requests as a table, per key first in line first; the place counts from 1 within each key. */
    static void waiters(List<LockWaiter> waiters, PrintWriter out) {
        String[][] rows = new String[waiters.size() + 1][];
        rows[0] = WAITER_HEADERS;
        String lastKey = null;
        int place = 0;
        for (int i = 0; i < waiters.size(); i++) {
            LockWaiter w = waiters.get(i);
            String lineKey = w.level() + "#" + w.key();
            place = lineKey.equals(lastKey) ? place + 1 : 1;
            lastKey = lineKey;
            rows[i + 1] = new String[] {w.key(), w.level().name(), w.mode().text(w.permits()), w.nodeId(),
                    w.ownerName(), w.since().toString(), Integer.toString(place)};
        }
        aligned(rows, out);
    }

    private static void aligned(String[][] rows, PrintWriter out) {
        int[] widths = new int[rows[0].length];
        for (String[] row : rows) {
            for (int c = 0; c < row.length; c++) {
                widths[c] = Math.max(widths[c], printable(row[c]).length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < row.length; c++) {
                String cell = printable(row[c]);
                line.append(cell).append(" ".repeat(widths[c] - cell.length() + (c < row.length - 1 ? 2 : 0)));
            }
            out.println(line.toString().stripTrailing());
        }
    }

    private static String[] prepend(String first, String[] rest) {
        String[] row = new String[rest.length + 1];
        row[0] = first;
        System.arraycopy(rest, 0, row, 1, rest.length);
        return row;
    }

    private static String expiresIn(Instant expiration, Instant now) {
        long millis = Duration.between(now, expiration).toMillis();
        return millis <= 0 ? "expired" : String.format(java.util.Locale.ROOT, "%.1f s", millis / 1000.0);
    }

    /** Keys are any text: control characters would break the table's lines, so they are shown escaped. */
    private static String printable(String text) {
        StringBuilder out = new StringBuilder(text.length());
        text.codePoints().forEach(cp -> {
            if (Character.isISOControl(cp)) {
                out.append(String.format("\\u%04x", cp));
            } else {
                out.appendCodePoint(cp);
            }
        });
        return out.toString();
    }
}
