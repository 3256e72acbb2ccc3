package io.github.lockmanager.testing;

import io.github.lockmanager.spi.LockStore;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInfo;

/**
 * Everything a store must pass: the SPI rules ({@link LockStoreContract}) and the lock manager's behaviour on it
 * ({@link LockManagerContract}, {@link LossContract}), holds lent to guarded work ({@link GuardedHoldContract}), locks
 * owned by a task ({@link TaskLockContract}) in every mode ({@link TaskModeContract}), hand-offs between threads of a
 * node ({@link HandOffContract}), shared and hierarchical locks ({@link LockModeContract}) and permits
 * ({@link PermitContract}), fair waits, deadlocks and sets of keys across nodes ({@link RequestContract}), leader
 * elections ({@link LeaderContract}). A store gets all of it by one small subclass that names the store:
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
        @BeforeEach
        void whereRun() {
            assumeRuns(LockStoreContract.class);
        }

        @Override
        protected LockStore store() {
            return StoreTck.this.store();
        }
    }

    @Nested
    class Engine extends LockManagerContract {
        @BeforeEach
        void whereRun() {
            assumeRuns(LockManagerContract.class);
        }

        @Override
        protected LockStore store() {
            return StoreTck.this.store();
        }
    }

    @Nested
    class Losses extends LossContract {
        @BeforeEach
        void whereRun() {
            assumeRuns(LossContract.class);
        }

        @Override
        protected LockStore store() {
            return StoreTck.this.store();
        }
    }

    @Nested
    class Guards extends GuardedHoldContract {
        @BeforeEach
        void whereRun() {
            assumeRuns(GuardedHoldContract.class);
        }

        @Override
        protected LockStore store() {
            return StoreTck.this.store();
        }
    }

    @Nested
    class HandOff extends HandOffContract {
        @BeforeEach
        void whereRun() {
            assumeRuns(HandOffContract.class);
        }

        @Override
        protected LockStore store() {
            return StoreTck.this.store();
        }
    }

    @Nested
    class Requests extends RequestContract {
        @BeforeEach
        void whereRun(TestInfo test) {
            assumeRuns(RequestContract.class);
            String name = test.getTestMethod().map(java.lang.reflect.Method::getName).orElse("");
            Assumptions.assumeTrue(runs(RequestContract.class, name), () -> StoreTck.this.getClass().getSimpleName()
                    + " leaves out " + name + ": see its runs(contract, test)");
        }

        @Override
        protected LockStore store() {
            return StoreTck.this.store();
        }
    }

    /**
     * Whether this subclass runs {@code contract}, one of the contracts above: all of them. A second subclass of a
     * store that differs from the main one beneath the SPI only (a pool's auto-commit setting, a cluster's slots) may
     * run the contracts that make each kind of store call ({@link LockStoreContract}, {@link LockModeContract},
     * {@link PermitContract}, {@link RequestContract}) and leave to the main subclass those that combine the same
     * calls otherwise; a skipped contract's tests are reported as skipped.
     */
    protected boolean runs(Class<?> contract) {
        return true;
    }

    /**
     * Whether this subclass runs the case {@code test} of {@code contract} (so far asked of {@link RequestContract}'s
     * cases): all of them. A subclass that leaves one out says why in its override, and the case is reported as
     * skipped.
     */
    protected boolean runs(Class<?> contract, String test) {
        return true;
    }

    private void assumeRuns(Class<?> contract) {
        Assumptions.assumeTrue(runs(contract), () -> getClass().getSimpleName() + " leaves "
                + contract.getSimpleName() + " to the store's main TCK subclass");
    }

    @Nested
    class Leaders extends LeaderContract {
        @BeforeEach
        void whereRun() {
            assumeRuns(LeaderContract.class);
        }

        @Override
        protected LockStore store() {
            return StoreTck.this.store();
        }
    }

    @Nested
    class Modes extends LockModeContract {
        @BeforeEach
        void whereRun() {
            assumeRuns(LockModeContract.class);
        }

        @Override
        protected LockStore store() {
            return StoreTck.this.store();
        }
    }

    @Nested
    class Permits extends PermitContract {
        @BeforeEach
        void whereRun() {
            assumeRuns(PermitContract.class);
        }

        @Override
        protected LockStore store() {
            return StoreTck.this.store();
        }
    }

    @Nested
    class Tasks extends TaskLockContract {
        @BeforeEach
        void whereRun() {
            assumeRuns(TaskLockContract.class);
        }

        @Override
        protected LockStore store() {
            return StoreTck.this.store();
        }
    }

    @Nested
    class TaskModes extends TaskModeContract {
        @BeforeEach
        void whereRun() {
            assumeRuns(TaskModeContract.class);
        }

        @Override
        protected LockStore store() {
            return StoreTck.this.store();
        }
    }
}
