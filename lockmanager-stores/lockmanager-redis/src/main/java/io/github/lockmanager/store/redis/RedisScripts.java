package io.github.lockmanager.store.redis;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.store.support.FencingEpoch;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The store's server-side scripts: every decision is one script on the key's hash, run by the server atomically on its
 * own clock ({@code TIME}), so nothing is read and then written conditionally on what was read.
 *
 * <p>A key's hash ({@link RedisLayout}) has the fields {@code f} (the fencing counter: the last token granted),
 * {@code a} (the abort mark: holders whose token is at most it are asked to abort), {@code w} (a waiter on some node
 * wants the next release published; {@code s} on a line of requests: every release), {@code r} (the last release
 * call), the caller's data ({@code d:<name>}, see {@link RedisLockData}) and one field {@code h:<owner token>} per holder, whose value is
 * {@code <mode> <lease end ms> <lock time ms> <token> <node id length> <node id><thread name>}, where the mode is
 * its {@linkplain LockMode#code() code}, and for a permit holder the code, a colon and its number of permits
 * ({@code 4:3}). Numbers are kept in
 * decimal; Lua's numbers are doubles, exact for the tokens of the next centuries.
 */
final class RedisScripts {
    /** One script: its text and the SHA-1 by which {@code EVALSHA} names it. */
    record Script(String name, String text, String sha) {
        static Script of(String name, String body) {
            String text = PRELUDE + body;
            return new Script(name, text, sha1(text));
        }
    }

    /**
     * What every script starts with: effects replication (a script reading {@code TIME} and then writing must be
     * replicated by its effects; Redis 7 and Valkey always do, earlier servers are told), the server's clock in
     * milliseconds, and the conflict table of the modes by {@linkplain LockMode#code() code}, written from
     * {@link LockMode#conflictsWith} (two permit holders are kept apart by their number instead).
     */
    private static final String PRELUDE = """
            if redis.replicate_commands then pcall(redis.replicate_commands) end
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            local function num(x) return string.format('%.0f', x) end
            """ + "local CONFLICT = " + conflictTable() + "\n" + """
            local function isHolder(f) return string.sub(f, 1, 2) == 'h:' end
            local function lease(v) return tonumber(string.match(v, '^%S+ (%d+) ')) end
            local function token(v) return tonumber(string.match(v, '^%S+ %d+ %d+ (%d+) ')) end
            local GT = redis.REDIS_VERSION_NUM ~= nil and redis.REDIS_VERSION_NUM >= 0x070000
            local function extend(k, ttl, new)
              if new then redis.call('PEXPIRE', k, ttl)
              elseif GT then redis.call('PEXPIRE', k, ttl, 'GT')
              elseif redis.call('PTTL', k) < ttl then redis.call('PEXPIRE', k, ttl) end
            end
            """;

    /** The Lua table {@code {[code] = {[code of a mode it conflicts with] = true, ...}, ...}}. */
    static String conflictTable() {
        StringBuilder lua = new StringBuilder("{");
        for (LockMode mode : LockMode.values()) {
            lua.append(lua.length() > 1 ? ", " : "").append('[').append(mode.code()).append("] = {");
            String separator = "";
            for (LockMode other : LockMode.values()) {
                if (mode.conflictsWith(other)) {
                    lua.append(separator).append('[').append(other.code()).append("] = true");
                    separator = ", ";
                }
            }
            lua.append('}');
        }
        return lua.append('}').toString();
    }


    /**
     * KEYS[1] the key's hash, KEYS[2] the incarnation marker of its slot ({@link RedisIncarnation}); ARGV: the holder
     * field, the mode as entries write it, lease ms, retention ms, the predecessor's field (or empty), the entry's tail
     * ({@code <node id length> <node id><thread name>}), the restart quarantine ms (0: none), {@code 1} if the server
     * keeps every write it acknowledged across a restart, {@code 1} if the key is a line of requests (a grant marks it
     * for good as waited for: see {@link #RELEASE}). Answers {@code {1, entry, now, abort mark}} when granted
     * (also when the request's own live entry is there already: an earlier attempt applied),
     * {@code {0, entry, now, abort mark, field}} naming a live holder in the way (one in a conflicting mode, a permit
     * holder of another number, or one of the permit holders when all permits are taken), {@code {0, '', now, abort
     * mark, ''}} when the request names a predecessor whose entry is gone (a hand-off is owner-checked), or
     * {@code {2, '', now, abort mark, '', quarantine end ms}} when a new grant must wait for the quarantine that follows
     * a restart which may have lost locks. A grant removes the predecessor's entry and those whose lease ended, moves
     * the counter by the epoch rule and never shortens the hash's TTL. The note of the last release stays until the
     * next release overwrites it: it answers only a retry of the very call it names, whose entry is gone either way.
     */
    static final Script ACQUIRE = Script.of("acquire", RedisIncarnation.RECOVERING + """
            local mine, mode = ARGV[1], tonumber(string.sub(ARGV[2], 1, 1))
            local permits = tonumber(string.match(ARGV[2], ':(%%d+)$') or '0')
            local all = redis.call('HGETALL', KEYS[1])
            local gone, fence, abort, taken, permitAt, handed = {}, 0, 0, 0, 0, ARGV[5] == ''
            local function refuse(i)
              for j = 1, #all, 2 do
                if all[j] == 'a' then abort = tonumber(all[j + 1]) end
              end
              return {0, all[i + 1], now, abort, all[i]}
            end
            for i = 1, #all, 2 do
              local f, v = all[i], all[i + 1]
              if f == 'f' then fence = tonumber(v)
              elseif f == 'a' then abort = tonumber(v)
              elseif isHolder(f) then
                if f == ARGV[5] then gone[#gone + 1] = f; handed = true
                elseif lease(v) <= now then gone[#gone + 1] = f
                elseif f == mine then return {1, v, now, abort}
                elseif CONFLICT[tonumber(string.sub(v, 1, 1))][mode] then return refuse(i)
                elseif mode == 4 then
                  if string.match(v, '^%%S+') ~= ARGV[2] then return refuse(i) end
                  taken, permitAt = taken + 1, i
                end
              end
            end
            if mode == 4 and taken >= permits then return refuse(permitAt) end
            if not handed then return {0, '', now, abort, ''} end
            if ARGV[5] == '' then
              local ends = recovering(KEYS[2], tonumber(ARGV[7]), ARGV[8] == '1')
              if ends > now then return {2, '', now, abort, '', num(ends)} end
            end
            local tk = math.max(fence + 1, now * %d)
            local entry = ARGV[2] .. ' ' .. num(now + tonumber(ARGV[3])) .. ' ' .. num(now) .. ' ' .. num(tk) .. ' ' .. ARGV[6]
            if #gone > 0 then redis.call('HDEL', KEYS[1], unpack(gone)) end
            if ARGV[9] == '1' then redis.call('HSET', KEYS[1], 'f', num(tk), mine, entry, 'w', 's')
            else redis.call('HSET', KEYS[1], 'f', num(tk), mine, entry) end
            extend(KEYS[1], tonumber(ARGV[3]) + tonumber(ARGV[4]), #all == 0)
            return {1, entry, now, abort}
            """.formatted(FencingEpoch.TOKENS_PER_MILLISECOND));

    /**
     * KEYS[1] the key's hash; ARGV: the holder field, the channel, the storage key, the release call's nonce. Removes
     * the entry and notes it with the nonce as the key's last release ({@code r}, until the next grant), so that the
     * same call sent again (a retry, or Lettuce sending a command again after a reconnect lost its answer) answers as
     * it did the first time, while another release of the same entry finds it gone; publishes the storage key on the
     * channel if a waiter marked the key, and takes the mark off unless it is a line's lasting one ({@code s}, set by
     * each request's grant: every withdrawal from a line is published, with the withdrawn request's owner token, as
     * {@code <token length> <owner token><storage key>}, and its waiters watch it with no call). Answers
     * {1} if the entry was live, {0} if its lease had ended, {-1} if it was not there.
     */
    static final Script RELEASE = Script.of("release", """
            local got = redis.call('HMGET', KEYS[1], ARGV[1], 'w', 'r')
            local v, w = got[1], got[2]
            local call = ARGV[1] .. '@' .. ARGV[4]
            if not v then
              if got[3] == call then return {1} end
              return {-1}
            end
            if w and w ~= 's' then redis.call('HDEL', KEYS[1], ARGV[1], 'w')
            else redis.call('HDEL', KEYS[1], ARGV[1]) end
            redis.call('HSET', KEYS[1], 'r', call)
            if w == 's' then
              local o = string.sub(ARGV[1], 3)
              redis.call('PUBLISH', ARGV[2], #o .. ' ' .. o .. ARGV[3])
            elseif w then
              redis.call('PUBLISH', ARGV[2], ARGV[3])
            end
            if lease(v) > now then return {1} end
            return {0}
            """);

    /**
     * KEYS the hashes of the handles; ARGV: lease ms, retention ms, then each handle's holder field. Extends each live
     * entry to the lease from now. Answers per handle 0 (lost), 1 (held), 2 (held, abort asked).
     */
    static final Script RENEW = Script.of("renew", """
            local ms = tonumber(ARGV[1])
            local ttl = ms + tonumber(ARGV[2])
            local out = {}
            for i = 1, #KEYS do
              local got = redis.call('HMGET', KEYS[i], ARGV[i + 2], 'a')
              local v, a = got[1], got[2]
              local s = 0
              if v and lease(v) > now then
                local m, rest = string.match(v, '^(%S+) %d+ (.*)$')
                redis.call('HSET', KEYS[i], ARGV[i + 2], m .. ' ' .. num(now + ms) .. ' ' .. rest)
                extend(KEYS[i], ttl, false)
                s = (a and tonumber(a) >= token(v)) and 2 or 1
              end
              out[i] = s
            end
            return out
            """);

    /** As {@link #RENEW} without writing: ARGV are the holder fields alone. */
    static final Script CHECK = Script.of("check", """
            local out = {}
            for i = 1, #KEYS do
              local got = redis.call('HMGET', KEYS[i], ARGV[i], 'a')
              local v, a = got[1], got[2]
              local s = 0
              if v and lease(v) > now then
                s = (a and tonumber(a) >= token(v)) and 2 or 1
              end
              out[i] = s
            end
            return out
            """);

    /** KEYS[1] the key's hash. Answers {@code {now, abort mark, field, entry, field, entry, ...}} of every holder entry. */
    static final Script READ = Script.of("read", """
            local all = redis.call('HGETALL', KEYS[1])
            local out = {now, 0}
            for i = 1, #all, 2 do
              if all[i] == 'a' then out[2] = tonumber(all[i + 1])
              elseif isHolder(all[i]) then out[#out + 1] = all[i]; out[#out + 1] = all[i + 1] end
            end
            return out
            """);

    /** KEYS[1] the key's hash. If a holder is live, sets the abort mark to the counter and answers {1}; else {0}. */
    static final Script ABORT = Script.of("abort", """
            local all = redis.call('HGETALL', KEYS[1])
            local fence
            local live = false
            for i = 1, #all, 2 do
              if all[i] == 'f' then fence = all[i + 1]
              elseif isHolder(all[i]) and lease(all[i + 1]) > now then live = true end
            end
            if not live or not fence then return {0} end
            redis.call('HSET', KEYS[1], 'a', fence)
            return {1}
            """);

    /** KEYS[1] the key's hash. If a holder is live, marks the key as waited for and answers {1}; else {0}. */
    static final Script MARK_WAITED = Script.of("mark-waited", """
            local all = redis.call('HGETALL', KEYS[1])
            for i = 1, #all, 2 do
              if isHolder(all[i]) and lease(all[i + 1]) > now then
                redis.call('HSET', KEYS[1], 'w', '1')
                return {1}
              end
            end
            return {0}
            """);

    /**
     * KEYS[1] the key's hash; ARGV[1] a holder field. Answers {@code {1, name, value, ...}} of the data fields
     * ({@code d:<name>}) while that holder's entry is live, else {@code {0}}.
     */
    static final Script DATA_READ = Script.of("data-read", """
            local v = redis.call('HGET', KEYS[1], ARGV[1])
            if not v or lease(v) <= now then return {0} end
            local all = redis.call('HGETALL', KEYS[1])
            local out = {1}
            for i = 1, #all, 2 do
              if string.sub(all[i], 1, 2) == 'd:' then
                out[#out + 1] = string.sub(all[i], 3); out[#out + 1] = all[i + 1]
              end
            end
            return out
            """);

    /**
     * KEYS[1] the key's hash; ARGV: the holder field, 1 to release with the changes (else 0), the call's nonce, the
     * channel, the storage key, the number of puts, then each put's name and value, then the names to remove. Applies
     * it all while the holder's entry is live, releasing as {@link #RELEASE} does; answers {1}, or {0} when the entry is
     * not live (nothing written), or {1} when this very call released it already.
     */
    static final Script DATA_WRITE = Script.of("data-write", """
            local v = redis.call('HGET', KEYS[1], ARGV[1])
            local call = ARGV[1] .. '@' .. ARGV[3]
            if not v or lease(v) <= now then
              if ARGV[2] == '1' and redis.call('HGET', KEYS[1], 'r') == call then return {1} end
              return {0}
            end
            local puts = tonumber(ARGV[6])
            for i = 7, 6 + 2 * puts, 2 do redis.call('HSET', KEYS[1], 'd:' .. ARGV[i], ARGV[i + 1]) end
            for i = 7 + 2 * puts, #ARGV do redis.call('HDEL', KEYS[1], 'd:' .. ARGV[i]) end
            if ARGV[2] == '1' then
              redis.call('HDEL', KEYS[1], ARGV[1])
              redis.call('HSET', KEYS[1], 'r', call)
              if redis.call('HDEL', KEYS[1], 'w') == 1 then redis.call('PUBLISH', ARGV[4], ARGV[5]) end
            end
            return {1}
            """);

    /**
     * KEYS[1] an incarnation marker ({@link RedisIncarnation}). Notes the server's run id and {@code LASTSAVE}, and
     * that its data lacks no grant: the restart quarantine is over until the next restart.
     */
    static final Script END_QUARANTINE = Script.of("end-quarantine", """
            local info = redis.call('INFO', 'server')
            redis.call('SET', KEYS[1], string.match(info, 'run_id:(%w+)') .. ' ' .. redis.call('LASTSAVE') .. ' '
              .. num(now) .. ' 0')
            return {1}
            """);

    static final java.util.List<Script> ALL = java.util.List.of(ACQUIRE, RELEASE, RENEW, CHECK, READ, ABORT, MARK_WAITED,
            DATA_READ, DATA_WRITE, END_QUARANTINE);

    private RedisScripts() {
    }

    private static String sha1(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            StringBuilder hex = new StringBuilder(40);
            for (byte b : digest) {
                hex.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
            }
            return hex.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-1", e);
        }
    }
}
