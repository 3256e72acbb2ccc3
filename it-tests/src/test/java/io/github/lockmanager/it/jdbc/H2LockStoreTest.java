package io.github.lockmanager.it.jdbc;

class H2LockStoreTest extends JdbcLockStoreContract {
    H2LockStoreTest() {
        super(Database.H2);
    }
}
