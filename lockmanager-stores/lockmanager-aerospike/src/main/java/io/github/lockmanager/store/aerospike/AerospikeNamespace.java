package io.github.lockmanager.store.aerospike;

import java.util.HashMap;
import java.util.Map;

/**
 * What {@link AerospikeLockStore#initialize()} needs to know of a namespace and its server, read from the info
 * answers {@code namespace/<name>} ({@code key=value;...}) and {@code edition}.
 */
final class AerospikeNamespace {
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
