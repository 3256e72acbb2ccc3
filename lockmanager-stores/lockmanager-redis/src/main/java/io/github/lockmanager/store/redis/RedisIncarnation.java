package io.github.lockmanager.store.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.SlotHash;

import java.util.ArrayList;
import java.util.List;

/**
 * How the store tells that a Redis server may have lost locks it granted, and keeps new grants back until every lock
 * of its earlier life has run out (Redlock's "delayed restart", done by the store instead of the operator).
 *
 * <p>Each database (on a cluster, each hash slot) holds a marker, {@code <prefix>incarnation} (on a cluster
 * {@code <prefix>incarnation{<tag>}}, the tag chosen so that the marker shares the slot of the lock hashes it guards),
 * with the server's run id, the {@code LASTSAVE} it saw, when it looked (server ms) and since when the server's data may
 * lack grants ({@code since}, server ms; 0 when nothing was lost). The acquisition script reads it before a new grant, in
 * the same round trip:
 * <ul>
 *   <li>marker gone (a restart without persistence, or a persistence file lost): the data was lost when the server
 *       started, {@code since} = the end of the second it started in, by {@code uptime_in_seconds};</li>
 *   <li>run id changed (a restart that loaded a snapshot or an append-only file): unless the server acknowledges only
 *       what it has written to disk ({@code appendonly yes}, {@code appendfsync always}, seen at
 *       {@code initialize()}), the last writes may be lost, so {@code since} is again the server's start;</li>
 *   <li>grants wait while now &lt; {@code since} + the quarantine, which is at least the longest lease: every holder of
 *       the earlier life has then seen its renewal refused, or its lease end, before anyone else is granted its key.</li>
 * </ul>
 * Reading the run id takes {@code INFO}, which costs the server as much as a grant; the script asks for it only when
 * {@code LASTSAVE} moved since the marker's last look, or that look fell in the same second as it (a restart sets
 * {@code LASTSAVE} to the second the server started, so a restart always moves it, or falls in that second).
 * A {@code FLUSHALL} on a server up longer than the quarantine is not seen (the server cannot tell it from a first use);
 * nor is a failover to a replica that lacked writes ({@link RedisLockStore.Builder#confirmReplicas}).
 */
final class RedisIncarnation {
    private static final String MARKER = "incarnation";

    /**
     * Lua: {@code recovering(marker, quarantine ms, lossless)}, the end of the quarantine in server ms (0 or a past time
     * when grants may go ahead). Needs the prelude's {@code now} and {@code num}.
     */
    static final String RECOVERING = """
            local function recovering(marker, quarantine, lossless)
              if quarantine == 0 then return 0 end
              local m = redis.call('GET', marker)
              local saved = redis.call('LASTSAVE')
              local run, seen, looked, since
              if m then run, seen, looked, since = string.match(m, '^(%S+) (%d+) (%d+) (%d+)$') end
              if m and tonumber(seen) == saved and tonumber(looked) >= (saved + 1) * 1000 then
                return tonumber(since) + quarantine
              end
              local info = redis.call('INFO', 'server')
              local id = string.match(info, 'run_id:(%w+)')
              -- uptime counts whole seconds of the clock since the second the server started in: the start is
              -- before the end of that second, which is the time taken (the later, the safer)
              local started = (math.floor(now / 1000) - tonumber(string.match(info, 'uptime_in_seconds:(%d+)')) + 1) * 1000
              if not m or (id ~= run and not lossless) then since = started
              elseif id ~= run then since = 0
              else since = tonumber(since) end
              redis.call('SET', marker, id .. ' ' .. saved .. ' ' .. num(now) .. ' ' .. num(since))
              return since + quarantine
            end
            """;

    private RedisIncarnation() {
    }

    /** Runs {@link RedisScripts#END_QUARANTINE} on every marker: the database's, or on a cluster every slot's, sent together. */
    static Void end(RedisAccess access, long timeoutMillis) throws Exception {
        long deadline = RedisAccess.deadline(timeoutMillis);
        String prefix = access.layout().prefix();
        if (!access.isCluster()) {
            String[] keys = {prefix + MARKER};
            access.answer(access.send(RedisScripts.END_QUARANTINE, keys), deadline, RedisScripts.END_QUARANTINE, keys);
            return null;
        }
        List<RedisFuture<Object>> sent = new ArrayList<>(Tags.OF_SLOT.length);
        for (String tag : Tags.OF_SLOT) {
            sent.add(access.send(RedisScripts.END_QUARANTINE, new String[] {prefix + MARKER + "{" + tag + "}"}));
        }
        for (int slot = 0; slot < sent.size(); slot++) {
            String[] keys = {prefix + MARKER + "{" + Tags.OF_SLOT[slot] + "}"};
            access.answer(sent.get(slot), deadline, RedisScripts.END_QUARANTINE, keys);
        }
        return null;
    }

    /** The marker guarding {@code hash}: one per database, or on a cluster one in {@code hash}'s slot. */
    static String marker(String prefix, String hash, boolean cluster) {
        return cluster ? prefix + MARKER + "{" + Tags.OF_SLOT[SlotHash.getSlot(hash)] + "}" : prefix + MARKER;
    }

    /** A short tag for every hash slot: the first decimal number that hashes to it. */
    private static final class Tags {
        static final String[] OF_SLOT = new String[SlotHash.SLOT_COUNT];

        static {
            int found = 0;
            for (int i = 0; found < OF_SLOT.length; i++) {
                String tag = Integer.toString(i);
                int slot = SlotHash.getSlot(tag);
                if (OF_SLOT[slot] == null) {
                    OF_SLOT[slot] = tag;
                    found++;
                }
            }
        }
    }
}
