package io.github.lockmanager.engine;

import io.github.lockmanager.Lock;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLossReason;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.internal.Require;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * What callers and operators ask about keys rather than of them (is it locked, which locks are there, the records of
 * one key) and the actions on other holders' locks (abort, force-release), for the facade, whose arguments are
 * checked. Each looks at this node's table first and tells local holders at once.
 */
final class Operations {
    private static final Logger log = LoggerFactory.getLogger(Operations.class);

    private final EngineSettings settings;
    private final LockStore store;
    private final AcquisitionTable table;
    private final KeyScope keys;
    private final Lifecycle lifecycle;
    private final StoreCalls calls;
    private final Delivery delivery;

    Operations(EngineParts parts) {
        this.settings = parts.settings;
        this.store = parts.store;
        this.table = parts.table;
        this.keys = parts.keys;
        this.lifecycle = parts.lifecycle;
        this.calls = parts.calls;
        this.delivery = parts.delivery;
    }

    boolean isLocked(String key, LockLevel level) throws LockManagerException {
        lifecycle.requireNotClosed();
        for (Acquisition local : table.all(level, key)) {
            if (local.isHeld()) {
                return true;
            }
        }
        return calls.run(() -> store.read(keys.storeKey(level, key))).isPresent();
    }

    List<Lock> getLocks() throws LockManagerException {
        lifecycle.requireNotClosed();
        List<Lock> locks = new ArrayList<>();
        for (LockRecord record : calls.run(store::list)) {
            if (!record.key().isRequests() && keys.includes(record.key())) {
                locks.add(record.toLock());
            }
        }
        return locks;
    }

    void abort(String key, LockLevel level) throws LockManagerException {
        lifecycle.requireNotClosed();
        boolean heldHere = false;
        for (Acquisition local : table.all(level, key)) {
            heldHere |= local.isHeld();
            delivery.abort(local);
        }
        boolean marked = calls.run(() -> store.markAbort(keys.storeKey(level, key)));
        log.info("Abort of lock '{}' asked on node '{}': {}", key, settings.nodeId(), heldHere
                ? "its holders on this node were interrupted" + (marked ? ", and it is marked in the store for other nodes' holders" : "")
                : marked ? "marked in the store for its holders' nodes to see" : "it was not locked, nothing to do");
    }

    List<Lock> inspect(String key, LockLevel level) throws LockManagerException {
        lifecycle.requireNotClosed();
        List<Lock> locks = new ArrayList<>();
        for (LockRecord record : calls.run(() -> store.inspect(keys.storeKey(level, key)))) {
            locks.add(record.toLock());
        }
        return locks;
    }

    int forceRelease(String key, LockLevel level, String requestedBy) throws LockManagerException {
        Require.argument(requestedBy != null && !requestedBy.isBlank(), "requestedBy must name who asked for the "
                + "force-release, was '%s'", requestedBy);
        lifecycle.requireNotClosed();
        List<String> released = new ArrayList<>();
        for (LockRecord record : calls.run(() -> store.releaseEvery(keys.storeKey(level, key)))) {
            released.add("node '" + record.nodeId() + "' thread '" + record.threadName() + "' " + record.mode()
                    + " token " + record.fencingToken());
            loseLocally(record.handle());
        }
        if (released.isEmpty()) {
            log.info("Force-release of lock '{}' ({}) asked by '{}' on node '{}': it was not locked, nothing to do", key,
                    level, requestedBy, settings.nodeId());
        } else {
            log.warn("Lock '{}' ({}) FORCE-RELEASED as asked by '{}' on node '{}': {}. Each holder's node interrupts it "
                            + "at its next check; the next holder gets a higher fencing token", key, level, requestedBy,
                    settings.nodeId(), released);
        }
        return released.size();
    }

    /** Tells a holder of this node at once that its record was force-released. */
    private void loseLocally(LockHandle handle) {
        for (Acquisition local : table.all(handle.key().level(), handle.key().name())) {
            if (local.handle().equals(handle)) {
                delivery.lose(local, LockLossReason.NOT_OWNED);
            }
        }
    }
}
