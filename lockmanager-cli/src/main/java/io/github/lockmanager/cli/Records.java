package io.github.lockmanager.cli;

import io.github.lockmanager.spi.LockRecord;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** Lock records as the tool prints them: an aligned table for people, JSON for scripts. */
final class Records {
    private static final String[] HEADERS = {"KEY", "LEVEL", "MODE", "NODE", "THREAD", "TOKEN", "LOCKED AT",
            "EXPIRES IN", "STATUS"};

    private Records() {
    }

    static void table(List<LockRecord> records, Instant now, PrintWriter out) {
        String[][] rows = new String[records.size() + 1][];
        rows[0] = HEADERS;
        for (int i = 0; i < records.size(); i++) {
            LockRecord r = records.get(i);
            rows[i + 1] = new String[]{r.key().name(), r.key().level().name(), r.mode().name(), r.nodeId(),
                    r.threadName(), Long.toString(r.fencingToken()), r.lockTime().toString(),
                    expiresIn(r.expirationTime(), now), r.status().name()};
        }
        int[] widths = new int[HEADERS.length];
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

    static void json(List<LockRecord> records, Instant now, PrintWriter out) {
        StringBuilder json = new StringBuilder("[");
        for (int i = 0; i < records.size(); i++) {
            LockRecord r = records.get(i);
            json.append(i == 0 ? "\n" : ",\n").append("  {\"key\": ").append(quote(r.key().name()))
                    .append(", \"level\": ").append(quote(r.key().level().name()))
                    .append(", \"mode\": ").append(quote(r.mode().name()))
                    .append(", \"node\": ").append(quote(r.nodeId()))
                    .append(", \"thread\": ").append(quote(r.threadName()))
                    .append(", \"fencingToken\": ").append(r.fencingToken())
                    .append(", \"lockedAt\": ").append(quote(r.lockTime().toString()))
                    .append(", \"expiresAt\": ").append(quote(r.expirationTime().toString()))
                    .append(", \"expiresInMillis\": ").append(Duration.between(now, r.expirationTime()).toMillis())
                    .append(", \"status\": ").append(quote(r.status().name())).append('}');
        }
        out.println(json.append(records.isEmpty() ? "]" : "\n]"));
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

    static String quote(String text) {
        StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            switch (ch) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (ch < 0x20 || ch == '<' || ch == '>' || ch == '&') {
                        // also escapes markup, so the JSON can be embedded in a page as it is
                        out.append(String.format("\\u%04x", (int) ch));
                    } else {
                        out.append(ch);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
