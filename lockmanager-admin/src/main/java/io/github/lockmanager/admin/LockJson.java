package io.github.lockmanager.admin;

import io.github.lockmanager.LockWaiter;
import io.github.lockmanager.spi.LockRecord;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Locks as JSON for scripts: an array of objects with {@code key}, {@code client}, {@code level}, {@code mode}, {@code node},
 * {@code thread}, {@code fencingToken}, {@code lockedAt}, {@code expiresAt}, {@code expiresInMillis}, {@code status}
 * and {@code heldTooLong}. Every string is escaped so that the text can also sit inside a page as it is.
 */
public final class LockJson {
    private LockJson() {
    }

    /** {@code records} as a JSON array, one object per line; "expires in" and "held too long" as of {@code now}. */
    public static String array(List<LockRecord> records, Instant now, LockAdmin admin) {
        StringBuilder json = new StringBuilder("[");
        for (int i = 0; i < records.size(); i++) {
            LockRecord r = records.get(i);
            json.append(i == 0 ? "\n" : ",\n").append("  {\"key\": ").append(quote(r.key().name()))
                    .append(", \"client\": ").append(quote(r.key().clientId()))
                    .append(", \"level\": ").append(quote(r.key().level().name()))
                    .append(", \"mode\": ").append(quote(r.mode().name()))
                    .append(", \"permits\": ").append(r.permits())
                    .append(", \"node\": ").append(quote(r.nodeId()))
                    .append(", \"thread\": ").append(quote(r.threadName()))
                    .append(", \"fencingToken\": ").append(r.fencingToken())
                    .append(", \"lockedAt\": ").append(quote(r.lockTime().toString()))
                    .append(", \"expiresAt\": ").append(quote(r.expirationTime().toString()))
                    .append(", \"expiresInMillis\": ").append(Duration.between(now, r.expirationTime()).toMillis())
                    .append(", \"status\": ").append(quote(r.status().name()))
                    .append(", \"heldTooLong\": ").append(admin.isHeldTooLong(r, now)).append('}');
        }
        return json.append(records.isEmpty() ? "]" : "\n]").toString();
    }

    /** {@code waiters} as a JSON array: key, level, mode, permits, node, owner, since, expiresAt, order. */
    public static String waiters(List<LockWaiter> waiters) {
        StringBuilder json = new StringBuilder("[");
        for (int i = 0; i < waiters.size(); i++) {
            LockWaiter w = waiters.get(i);
            json.append(i == 0 ? "\n" : ",\n").append("  {\"key\": ").append(quote(w.key()))
                    .append(", \"level\": ").append(quote(w.level().name()))
                    .append(", \"mode\": ").append(quote(w.mode().name()))
                    .append(", \"permits\": ").append(w.permits())
                    .append(", \"node\": ").append(quote(w.nodeId()))
                    .append(", \"owner\": ").append(quote(w.ownerName()))
                    .append(", \"since\": ").append(quote(w.since().toString()))
                    .append(", \"expiresAt\": ").append(quote(w.expirationTime().toString()))
                    .append(", \"order\": ").append(w.order()).append('}');
        }
        return json.append(waiters.isEmpty() ? "]" : "\n]").toString();
    }

    /** {@code text} as a JSON string; also escapes {@code < > &}, so it cannot close a script or start markup. */
    public static String quote(String text) {
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
                    if (ch < 0x20 || ch == '<' || ch == '>' || ch == '&' || ch == '\u2028' || ch == '\u2029') {
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
