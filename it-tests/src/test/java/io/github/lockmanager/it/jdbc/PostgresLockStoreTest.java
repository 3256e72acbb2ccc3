package io.github.lockmanager.it.jdbc;

class PostgresLockStoreTest extends JdbcLockStoreContract {
    PostgresLockStoreTest() {
        super(Database.POSTGRES);
    }
}
