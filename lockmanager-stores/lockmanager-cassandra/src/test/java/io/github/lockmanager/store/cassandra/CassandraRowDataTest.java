package io.github.lockmanager.store.cassandra;

import io.github.lockmanager.LockData;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockStore;
import io.github.lockmanager.testing.LockDataContract;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Data kept in the lock's own row, on the test node: the TCK's contract, and what the row adds. */
class CassandraRowDataTest extends LockDataContract<byte[]> {
    private static final String TABLE = "lockmanager_rowdata";
    private static CassandraLockStore store;
    private static CassandraRowData data;

    private static synchronized CassandraLockStore shared() {
        if (store == null) {
            store = CassandraCluster.store(TABLE);
            data = new CassandraRowData(store);
        }
        return store;
    }

    @Override
    protected LockStore store() {
        return shared();
    }

    @Override
    protected LockData<byte[]> data() {
        shared();
        return data;
    }

    @Override
    protected byte[] value(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    protected String text(byte[] value) {
        return new String(value, StandardCharsets.UTF_8);
    }

    @Test
    void theDataStaysInTheRowWithoutATtlForTheNextHolder() throws Exception {
        LockManager a = node("a");
        try (LockResource held = a.lock("ledger")) {
            data().change(held, Map.of("balance", value("10")), List.of());
        }
        var row = CassandraCluster.session().execute("SELECT TTL(d['balance']), d FROM " + CassandraCluster.KEYSPACE
                + "." + TABLE + " WHERE k = ?", LockKey.dc("farm1", clientId, "ledger").storageKey()).one();
        assertThat(row).isNotNull();
        assertThat(row.isNull(0)).isTrue();
        ByteBuffer balance = row.getMap(1, String.class, ByteBuffer.class).get("balance");
        assertThat(StandardCharsets.UTF_8.decode(balance).toString()).isEqualTo("10");
    }

    @Test
    void badNamesAreRefusedAndNothingIsWritten() throws Exception {
        LockManager a = node("a");
        try (LockResource held = a.lock("names")) {
            assertThatThrownBy(() -> data().change(held, Map.of("", value("x")), List.of()))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> data().change(held, Map.of("x".repeat(256), value("x")), List.of()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 255");
            assertThatThrownBy(() -> data().change(held, Map.of("both", value("x")), List.of("both")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("both put and deleted");
            assertThat(data().read(held)).isEmpty();
        }
    }
}
