package io.github.lockmanager.engine;

import io.github.lockmanager.LockLevel;
import io.github.lockmanager.spi.LockKey;

/** The store keys of one manager: its client at each level, and its farm at {@link LockLevel#DC}. */
final class KeyScope {
    private final String clientId;
    private final String farmId;
    /** Farm and client checked once: {@link #storeKey} only adds the caller's key. */
    private final LockKey dcKeys;
    private final LockKey xdcKeys;

    KeyScope(EngineSettings settings) {
        this.clientId = settings.clientId();
        this.farmId = settings.farmId();
        this.dcKeys = LockKey.dc(farmId, clientId, "");
        this.xdcKeys = LockKey.xdc(clientId, "");
    }

    LockKey storeKey(LockLevel level, String key) {
        return (level == LockLevel.DC ? dcKeys : xdcKeys).withName(key);
    }

    /** Whether a record of a shared store is one this manager's callers can see: their client, and farm at DC. */
    boolean includes(LockKey key) {
        return key.clientId().equals(clientId) && (key.level() != LockLevel.DC || key.farmId().equals(farmId));
    }
}
