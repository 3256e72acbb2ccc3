package io.github.lockmanager.store.jdbc;

class H2LockStoreTest extends JdbcLockStoreContract {
    H2LockStoreTest() {
        super(Database.H2);
    }
}
