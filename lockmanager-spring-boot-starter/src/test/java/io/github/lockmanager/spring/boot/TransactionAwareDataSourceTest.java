package io.github.lockmanager.spring.boot;

import io.github.lockmanager.store.jdbc.JdbcLockStore;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Spring's transaction-aware proxy hands out the caller's transaction's connection: the lock store's writes would
 * commit with the application's work or be undone by its rollback, so the store refuses it and names the fix.
 */
class TransactionAwareDataSourceTest {
    @Test
    void theJdbcStoreRefusesATransactionAwareProxyAndNamesWhatToGiveIt() {
        DriverManagerDataSource target = new DriverManagerDataSource("jdbc:postgresql://127.0.0.1:5432/test",
                "postgres", "");

        assertThatThrownBy(() -> JdbcLockStore.builder(new TransactionAwareDataSourceProxy(target)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TransactionAwareDataSourceProxy")
                .hasMessageContaining("getTargetDataSource()");
        JdbcLockStore.builder(target).build().close();
    }
}
