package io.github.lockmanager;

import java.util.List;

/**
 * Several locks taken together, all or nothing ({@link LockManager#waitForAll}), closed together. Belongs to the
 * thread that took it, as each of its locks does.
 *
 * <pre>{@code
 * try (LockSet both = manager.waitForAll(List.of(LockSpec.of("account-1"), LockSpec.of("account-2")),
 *         Duration.ofSeconds(5))) {
 *     long token = both.get(0).getFencingToken();
 *     ...
 * }
 * }</pre>
 */
public interface LockSet extends AutoCloseable {

    /** The locks, one per spec, in the order the specs were given. */
    List<LockResource> getLocks();

    /** The lock of the {@code index}-th spec given. */
    default LockResource get(int index) {
        return getLocks().get(index);
    }

    /** Whether any of the locks was lost (see {@link LockResource#isLost()}). */
    boolean isLost();

    /** Gives every lock back, in the reverse of the order they were taken; idempotent. */
    @Override
    void close();
}
