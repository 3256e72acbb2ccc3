package io.github.lockmanager.testing.support;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRequest;

import java.util.UUID;

/** Keys and acquisition requests for store-level tests. */
public final class Requests {
    private Requests() {
    }

    /** A key of its own for each call: tests on a shared store never meet. */
    public static LockKey uniqueKey(String client, String name) {
        return LockKey.xdc(client, name + "-" + UUID.randomUUID());
    }

    /** A request of owner {@code owner}, with node and thread named after it. */
    public static LockRequest request(LockKey key, String owner) {
        return request(key, owner, LockMode.EXCLUSIVE);
    }

    /** A request of owner {@code owner} in {@code mode}; a {@link LockMode#PERMIT} one asks for 2 permits. */
    public static LockRequest request(LockKey key, String owner, LockMode mode) {
        return mode == LockMode.PERMIT ? permit(key, owner, 2)
                : LockRequest.of(new LockHandle(key, owner), "node-" + owner, "thread-" + owner, mode);
    }

    /** A request of owner {@code owner} for one of {@code permits} permits. */
    public static LockRequest permit(LockKey key, String owner, int permits) {
        return LockRequest.permit(new LockHandle(key, owner), "node-" + owner, "thread-" + owner, permits);
    }
}
