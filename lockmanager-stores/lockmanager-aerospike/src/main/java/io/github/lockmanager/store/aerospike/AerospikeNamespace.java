package io.github.lockmanager.store.aerospike;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Map;

/**
 * What {@link AerospikeLockStore#initialize()} needs to know of a namespace and its server, read from the info
 * answers {@code namespace/<name>} ({@code key=value;...}) and {@code edition}.
 */
final class AerospikeNamespace {
    private static final Logger log = LoggerFactory.getLogger(AerospikeNamespace.class);
    private final String name;
    private final Map<String, String> config;
    private final String edition;

    AerospikeNamespace(String name, String namespaceInfo, String edition) {
        this.name = name;
        this.config = parse(namespaceInfo, ';');
        this.edition = edition == null ? "" : edition.trim();
    }

    String name() {
        return name;
    }

    /** Whether records with a TTL are accepted: the expiry process runs, or TTLs are allowed without it. */
    boolean acceptsTtl() {
        return !"0".equals(config.get("nsup-period")) || "true".equals(config.get("allow-ttl-without-nsup"));
    }

    /** Whether the namespace runs in strong-consistency mode (Enterprise Edition); else it is available-first. */
    boolean isStrongConsistency() {
        return "true".equals(config.get("strong-consistency"));
    }

    /**
     * Whether a restart of the namespace loses every record: kept in memory ({@code storage-engine memory}) without a
     * file or device to persist to.
     */
    boolean isVolatile() {
        return "memory".equals(config.get("storage-engine")) && config.keySet().stream().noneMatch(setting ->
                setting.startsWith("storage-engine.file[") || setting.startsWith("storage-engine.device["));
    }

    /**
     * Whether the server acknowledges a write only once it is on the device ({@code commit-to-device}, Enterprise
     * Edition); else a crash loses what was acknowledged in the last {@link #flushMillis()}.
     */
    boolean commitsToDevice() {
        return "true".equals(config.get("storage-engine.commit-to-device"));
    }

    /** How long an acknowledged write may wait in memory before it is written to the device ({@code flush-max-ms}). */
    String flushMillis() {
        return config.getOrDefault("storage-engine.flush-max-ms", "1000");
    }

    String edition() {
        return edition.isEmpty() ? "unknown edition" : edition;
    }

    /**
     * Refuses a namespace the store cannot keep its promises on, and logs what kind of consistency and durability it
     * gives.
     *
     * @param acceptVolatile whether a namespace kept in memory only is accepted (its risk named by the caller)
     * @throws LockManagerException {@code TABLE_CREATION_ERROR} naming the setting to change
     */
    void check(boolean acceptVolatile) throws LockManagerException {
        AerospikeNamespace ns = this;
        if (!ns.acceptsTtl()) {
            throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "Aerospike namespace '" + ns.name()
                    + "' rejects records with a TTL (nsup-period is 0): set nsup-period (for example 120) or "
                    + "allow-ttl-without-nsup true in its configuration");
        }
        if (ns.isVolatile() && !acceptVolatile) {
            throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "Aerospike namespace '" + ns.name()
                    + "' keeps its records in memory only (storage-engine memory without a file or device): a restart "
                    + "forgets every lock, and another node could then be granted a key while its former holder still "
                    + "works, until that holder's next renewal. Persist the namespace (a file or device in its "
                    + "storage-engine block), or accept that risk with acceptTwoHoldersAfterRestart(true)");
        }
        if (ns.isVolatile()) {
            log.warn("Aerospike namespace '{}' keeps its records in memory only, accepted by "
                    + "acceptTwoHoldersAfterRestart: after a restart another node can be granted a key while its former "
                    + "holder still works, until that holder's next renewal; fencing tokens stay ordered", ns.name());
        } else if (!ns.commitsToDevice()) {
            log.info("Aerospike namespace '{}' acknowledges writes before they reach its device (no commit-to-device):"
                    + " a crash of a node, not a clean shutdown, can lose the grants and renewals of its last {} ms",
                    ns.name(), ns.flushMillis());
        }
        if (ns.isStrongConsistency()) {
            log.info("Aerospike namespace '{}' is strong-consistency ({}): a lock is granted on one side of a split only",
                    ns.name(), ns.edition());
        } else {
            log.warn("Aerospike namespace '{}' is available-first, not strong-consistency ({}): after a network split "
                    + "both sides can grant the same lock until the cluster heals. Use a strong-consistency namespace "
                    + "(Enterprise Edition) where that matters", ns.name(), ns.edition());
        }
    }

    static Map<String, String> parse(String text, char separator) {
        Map<String, String> values = new HashMap<>();
        for (String pair : text.trim().split(String.valueOf(separator))) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                values.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        return values;
    }
}
