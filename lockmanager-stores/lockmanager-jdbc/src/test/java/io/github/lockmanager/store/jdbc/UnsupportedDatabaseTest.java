package io.github.lockmanager.store.jdbc;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteDataSource;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class UnsupportedDatabaseTest {
    @Test
    void aDatabaseWithoutADialectFailsInitializeNamingIt(@TempDir Path dir) {
        SQLiteDataSource sqlite = new SQLiteDataSource();
        sqlite.setUrl("jdbc:sqlite:" + dir.resolve("locks.db"));
        JdbcLockStore store = JdbcLockStore.builder(sqlite).build();
        assertThatThrownBy(store::initialize).isInstanceOfSatisfying(LockManagerException.class, e -> {
            assertThat(e.getErrorCode()).isEqualTo(ErrorCode.TABLE_CREATION_ERROR);
            assertThat(e.getMessage()).contains("SQLite").contains("PostgreSQL, MariaDB, MySQL 8 and H2");
        });
    }

    @Test
    void badSettingsAreNamed() {
        assertThatThrownBy(() -> JdbcLockStore.builder(null)).hasMessageContaining("dataSource");
        assertThatThrownBy(() -> JdbcLockStore.builder(new SQLiteDataSource()).tableName("locks; drop table x"))
                .hasMessageContaining("tableName");
        assertThatThrownBy(() -> JdbcLockStore.builder(new SQLiteDataSource()).operationTimeout(java.time.Duration.ZERO))
                .hasMessageContaining("operationTimeout");
    }
}
