package io.github.lockmanager.store.hbase;

import org.apache.hadoop.hbase.TableName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How a failed answer of HBase's async client reaches the store: only faults of the store are retried as such. */
class LockTableTest {
    private static final TableName TABLE = TableName.valueOf("lock_table_test");

    @Test
    void anIOExceptionOfTheClientReachesTheStoreAsItIs() {
        IOException down = new IOException("region server down");
        assertThatThrownBy(() -> LockTable.of(CompletableFuture.failedFuture(down), TABLE, 100)).isSameAs(down);
    }

    @Test
    void anErrorIsPassedOnNotTurnedIntoAnIOExceptionTheStoreWouldRetry() {
        LinkageError broken = new LinkageError("a class of the client is missing");
        assertThatThrownBy(() -> LockTable.of(CompletableFuture.failedFuture(broken), TABLE, 100)).isSameAs(broken);
    }
}
