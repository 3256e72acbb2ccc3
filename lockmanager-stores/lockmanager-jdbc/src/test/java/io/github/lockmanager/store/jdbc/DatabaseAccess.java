package io.github.lockmanager.store.jdbc;

import javax.sql.DataSource;

/** The test JVM's database pools, for tests in other packages. */
public final class DatabaseAccess {
    private DatabaseAccess() {
    }

    public static DataSource postgres() {
        return Database.POSTGRES.shared();
    }

    public static String postgresUrl() {
        return Database.POSTGRES.url();
    }
}
