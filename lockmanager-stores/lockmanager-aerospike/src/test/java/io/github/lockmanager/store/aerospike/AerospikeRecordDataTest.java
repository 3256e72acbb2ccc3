package io.github.lockmanager.store.aerospike;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.AlreadyLockedException;
import io.github.lockmanager.LockLevel;
import io.github.lockmanager.LockLostException;
import io.github.lockmanager.LockData;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockResource;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.spi.LockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import io.github.lockmanager.testing.LockDataContract;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Data kept in the lock's own record, on the real server: the TCK's contract, and the rules of bin names. */
@ExtendWith(AerospikeServer.class)
class AerospikeRecordDataTest extends LockDataContract<Object> {
    private static AerospikeLockStore store;
    private static AerospikeRecordData data;

    private final List<LockManager> managers = new ArrayList<>();
    private final String client = "data-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void createStore() {
        store = AerospikeServer.store("data");
        data = new AerospikeRecordData(store);
    }

    @Override
    protected LockStore store() {
        return store;
    }

    @Override
    protected LockData<Object> data() {
        return data;
    }

    @Override
    protected Object value(String text) {
        return text;
    }

    @Override
    protected String text(Object value) {
        return String.valueOf(value);
    }

    @AfterEach
    void closeManagers() {
        managers.forEach(LockManager::close);
    }

    private LockManager node(String node, LockStore lockStore, Duration lease) throws LockManagerException {
        LockManager manager = LockManagerBuilder.newBuilder().store(lockStore).clientId(client).nodeId(node)
                .lease(lease).abortPollInterval(lease.dividedBy(4)).shutdownTimeout(Duration.ofSeconds(2)).build();
        managers.add(manager);
        return manager;
    }

    private static long valueOf(Map<String, Object> data, String bin) {
        Object value = data.get(bin);
        return value == null ? 0 : ((Number) value).longValue();
    }





    @Test
    void badUseIsRefusedNamingWhatIsWrong() throws Exception {
        assertThatThrownBy(() -> new AerospikeRecordData(null)).hasMessageContaining("store");
        LockManager a = node("a", store, Duration.ofSeconds(30));
        try (LockResource held = a.lock("bad")) {
            assertThatThrownBy(() -> data.change(held, Map.of("holders", 1L), List.of()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'holders'");
            assertThatThrownBy(() -> data.change(held, Map.of("a-bin-name-too-long", 1L), List.of()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("15 bytes");
            assertThat(data.read(held)).as("nothing written by a refused change").isEmpty();
        }
    }
}
