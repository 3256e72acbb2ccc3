package io.github.lockmanager.it.jdbc;

class MariaDbLockStoreTest extends JdbcLockStoreContract {
    MariaDbLockStoreTest() {
        super(Database.MARIADB);
    }
}
