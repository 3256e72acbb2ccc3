package io.github.lockmanager.testing;

import io.github.lockmanager.spi.LockStore;
import org.junit.jupiter.api.Nested;

/**
 * Everything a store must pass: the SPI rules ({@link LockStoreContract}) and the lock manager's behaviour on it
 * ({@link LockManagerContract}, {@link LossContract}), holds lent to guarded work ({@link GuardedHoldContract}), locks
 * owned by a task ({@link TaskLockContract}) in every mode ({@link TaskModeContract}), hand-offs between threads of a
 * node ({@link HandOffContract}), shared and hierarchical locks ({@link LockModeContract}) and permits
 * ({@link PermitContract}), fair waits, deadlocks and sets of keys across nodes ({@link RequestContract}). A store gets all of it by one small subclass that names the store:
 *
 * <pre>{@code
 * class MyStoreTckTest extends StoreTck {
 *     protected LockStore store() { return MY_STORE; }
 * }
 * }</pre>
 */
public abstract class StoreTck {

    /** The real store every test of the subclass shares; initialized. */
    protected abstract LockStore store();

    @Nested
    class Spi extends LockStoreContract {
        @Override
        protected LockStore store() {
            return StoreTck.this.store();
        }
    }

    @Nested
    class Engine extends LockManagerContract {
        @Override
        protected LockStore store() {
            return StoreTck.this.store();
        }
    }

    @Nested
    class Losses extends LossContract {
        @Override
        protected LockStore store() {
            return StoreTck.this.store();
        }
    }

    @Nested
    class Guards extends GuardedHoldContract {
        @Override
        protected LockStore store() {
            return StoreTck.this.store();
        }
    }

    @Nested
    class HandOff extends HandOffContract {
        @Override
        protected LockStore store() {
            return StoreTck.this.store();
        }
    }

    @Nested
    class Requests extends RequestContract {
        @Override
        protected LockStore store() {
            return StoreTck.this.store();
        }

        @org.junit.jupiter.api.BeforeEach
        void whereAsked() {
            org.junit.jupiter.api.Assumptions.assumeTrue(StoreTck.this.testsRequests(),
                    "this variant of the store runs the requests contract's store calls no differently than its main "
                            + "TCK, which runs it");
        }
    }

    /**
     * Whether this subclass runs {@link RequestContract}: {@code true}; a second TCK subclass of a store that differs
     * only where requests do not reach (a pool's auto-commit setting) may leave it to the store's main one.
     */
    protected boolean testsRequests() {
        return true;
    }

    @Nested
    class Modes extends LockModeContract {
        @Override
        protected LockStore store() {
            return StoreTck.this.store();
        }
    }

    @Nested
    class Permits extends PermitContract {
        @Override
        protected LockStore store() {
            return StoreTck.this.store();
        }
    }

    @Nested
    class Tasks extends TaskLockContract {
        @Override
        protected LockStore store() {
            return StoreTck.this.store();
        }
    }

    @Nested
    class TaskModes extends TaskModeContract {
        @Override
        protected LockStore store() {
            return StoreTck.this.store();
        }
    }
}
