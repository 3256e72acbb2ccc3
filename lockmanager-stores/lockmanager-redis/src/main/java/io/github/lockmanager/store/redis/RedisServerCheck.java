package io.github.lockmanager.store.redis;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Refuses a Redis server the store cannot keep its promises on, from what {@code INFO} tells (which managed services
 * answer even where they rename {@code CONFIG}): a server older than 6.0, and one that may evict keys when it is full.
 * Every eviction policy but {@code noeviction} may evict a lock's hash (the {@code volatile-*} ones too: every lock
 * hash has a TTL), which would grant a held lock again and restart its fencing counter below tokens still in use.
 */
final class RedisServerCheck {
    private static final Logger log = LoggerFactory.getLogger(RedisServerCheck.class);
    private final String server;
    private final Map<String, String> info;

    /** @param info the answer of {@code INFO server} and {@code INFO memory} of {@code server}, as Redis writes it */
    RedisServerCheck(String server, String info) {
        this.server = server;
        this.info = parse(info);
    }

    static Map<String, String> parse(String info) {
        Map<String, String> fields = new HashMap<>();
        for (String line : info.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }

    /**
     * Checks every server of {@code infos} (address, answer), logging what each is and keeps across a restart.
     *
     * @return whether every one keeps every write it acknowledged ({@link #keepsEveryWrite()})
     * @throws LockManagerException {@code TABLE_CREATION_ERROR} naming the setting to change
     */
    static boolean checkAll(List<String[]> infos, String prefix) throws LockManagerException {
        boolean lossless = true;
        for (String[] info : infos) {
            RedisServerCheck check = new RedisServerCheck(info[0], info[1]);
            check.check();
            lossless &= check.keepsEveryWrite();
            log.info("Lock store on {} at {}, keys '{}*'{}; {}", check.version(), info[0], prefix,
                    check.evictsWhenLimited() ? " (its eviction policy would evict if a memory limit were set: keep it "
                            + "at noeviction)" : "", check.persistence());
        }
        return lossless;
    }

    /** @throws LockManagerException {@code TABLE_CREATION_ERROR} naming the setting to change */
    void check() throws LockManagerException {
        String version = info.getOrDefault("redis_version", "");
        if (major(version) < 6) {
            throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "Redis server " + server + " runs version '"
                    + version + "'; the lock store needs Redis 6.0 or later (or Valkey)");
        }
        String policy = info.getOrDefault("maxmemory_policy", "noeviction");
        long maxMemory = parseLong(info.getOrDefault("maxmemory", "0"));
        if (!policy.equals("noeviction") && maxMemory > 0) {
            throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "Redis server " + server + " has "
                    + "maxmemory-policy '" + policy + "' with maxmemory " + maxMemory + ": once full it may evict a lock's"
                    + " hash, granting a held lock again with a lower fencing token. Set maxmemory-policy to noeviction"
                    + " (or keep the locks on a server that does not evict)");
        }
    }

    /**
     * Whether a restart keeps every write the server acknowledged: an append-only file synced before each answer
     * ({@code appendonly yes}, {@code appendfsync always}), as {@code CONFIG GET} told ({@code false} where it is not
     * allowed).
     */
    boolean keepsEveryWrite() {
        return "yes".equals(info.get(RedisConnector.CONFIG + "appendonly"))
                && "always".equals(info.get(RedisConnector.CONFIG + "appendfsync"));
    }

    /** What a restart of the server keeps, for the log. */
    String persistence() {
        if (keepsEveryWrite()) {
            return "a restart keeps every acknowledged write (appendfsync always)";
        }
        String aof = info.get(RedisConnector.CONFIG + "appendonly");
        return "a restart may lose locks (" + (aof == null ? "persistence settings not readable"
                : "yes".equals(aof) ? "appendfsync " + info.get(RedisConnector.CONFIG + "appendfsync") : "appendonly no")
                + "): new grants wait for the restart quarantine after one";
    }

    /** Whether the server's eviction policy would evict once a memory limit is set. */
    boolean evictsWhenLimited() {
        return !info.getOrDefault("maxmemory_policy", "noeviction").equals("noeviction");
    }

    String version() {
        String valkey = info.get("valkey_version");
        return valkey != null ? "Valkey " + valkey : "Redis " + info.getOrDefault("redis_version", "?");
    }

    private static int major(String version) {
        int dot = version.indexOf('.');
        try {
            return Integer.parseInt(dot < 0 ? version : version.substring(0, dot));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static long parseLong(String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
