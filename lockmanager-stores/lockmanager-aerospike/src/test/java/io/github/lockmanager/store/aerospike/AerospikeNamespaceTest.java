package io.github.lockmanager.store.aerospike;

import com.aerospike.client.AerospikeClient;
import com.aerospike.client.AerospikeException;
import com.aerospike.client.BatchRead;
import com.aerospike.client.BatchRecord;
import com.aerospike.client.Host;
import com.aerospike.client.Key;
import com.aerospike.client.Record;
import com.aerospike.client.ResultCode;
import com.aerospike.client.policy.ClientPolicy;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * What the store concludes from a server's info answers and per-record result codes, for the findings on real
 * servers that no server here can reproduce: the answers are in the form the info protocol gives them.
 */
class AerospikeNamespaceTest {
    private static final String PERSISTENT_AP = "objects=0;storage-engine=device;storage-engine.file[0]=/opt/aerospike/data/"
            + "test.dat;nsup-period=120;strong-consistency=false;allow-ttl-without-nsup=false";
    private static final String IN_MEMORY = "objects=0;storage-engine=memory;nsup-period=120;strong-consistency=false";
    private static final String IN_MEMORY_WITH_FILE = "storage-engine=memory;storage-engine.file[0]=/data/ns.dat;"
            + "nsup-period=120;strong-consistency=true";
    private static final String NO_NSUP = "storage-engine=device;nsup-period=0;allow-ttl-without-nsup=false";
    private static AerospikeClient client;

    @BeforeAll
    static void clientWithoutServer() {
        ClientPolicy policy = new ClientPolicy();
        policy.failIfNotConnected = false;
        policy.timeout = 200;
        client = new AerospikeClient(policy, new Host("127.0.0.1", 1));
    }

    @AfterAll
    static void close() {
        client.close();
    }

    private static AerospikeLockStore.Builder builder() {
        return AerospikeLockStore.builder(client);
    }

    @Test
    void aNamespaceThatRejectsTtlsIsRefusedAndConsistencyIsRead() {
        assertThat(new AerospikeNamespace("test", NO_NSUP, "").acceptsTtl()).isFalse();
        assertThatThrownBy(() -> builder().build().check(new AerospikeNamespace("test", NO_NSUP, "")))
                .hasMessageContaining("nsup-period is 0");
        assertThat(new AerospikeNamespace("test", IN_MEMORY_WITH_FILE, "").isStrongConsistency()).isTrue();
        assertThat(new AerospikeNamespace("test", PERSISTENT_AP, "").isStrongConsistency()).isFalse();
    }

    @Test
    void aNamespaceARestartEmptiesIsRefusedUnlessTheRiskIsAccepted() {
        assertThat(new AerospikeNamespace("test", IN_MEMORY, "").isVolatile()).isTrue();
        assertThat(new AerospikeNamespace("test", IN_MEMORY_WITH_FILE, "").isVolatile()).isFalse();
        assertThat(new AerospikeNamespace("test", PERSISTENT_AP, "").isVolatile()).isFalse();
        assertThat(new AerospikeNamespace("test", "storage-engine=memory;storage-engine.device[0]=/dev/sdb", "")
                .isVolatile()).isFalse();
        assertThatThrownBy(() -> builder().build().check(new AerospikeNamespace("test", IN_MEMORY, "")))
                .isInstanceOf(LockManagerException.class)
                .hasMessageContaining("keeps its records in memory only").hasMessageContaining("acceptTwoHoldersAfterRestart")
                .extracting(e -> ((LockManagerException) e).getErrorCode()).isEqualTo(ErrorCode.TABLE_CREATION_ERROR);
        assertThatNoException().isThrownBy(() -> builder().acceptTwoHoldersAfterRestart(true).build()
                .check(new AerospikeNamespace("test", IN_MEMORY, "")));
        assertThatNoException().isThrownBy(() -> builder().build().check(new AerospikeNamespace("test",
                IN_MEMORY_WITH_FILE, "")));
    }

    @Test
    void onlyNotFoundAndAFailedOwnershipFilterMeanLost() {
        Key key = new Key("test", "XDC#locks", "c#k");

        assertThat(AerospikeBatches.answer(batchRecord(key, ResultCode.KEY_NOT_FOUND_ERROR, null))).isEqualTo(HoldState.LOST);
        assertThat(AerospikeBatches.answer(batchRecord(key, ResultCode.FILTERED_OUT, null))).isEqualTo(HoldState.LOST);
        assertThat(AerospikeBatches.answer(batchRecord(key, ResultCode.TIMEOUT, null))).as("a timeout tells nothing").isNull();
        assertThat(AerospikeBatches.answer(batchRecord(key, ResultCode.DEVICE_OVERLOAD, null))).isNull();
        assertThat(AerospikeBatches.answer(batchRecord(key, ResultCode.OK, new Record(Map.of("aborted", false), 1, 10))))
                .isEqualTo(HoldState.HELD);
        assertThat(AerospikeBatches.answer(batchRecord(key, ResultCode.OK, new Record(Map.of("aborted", true), 1, 10))))
                .isEqualTo(HoldState.ABORT_REQUESTED);
    }

    @Test
    void whatAServerSaysWhileItStartsOrIsBusyIsRetried() {
        for (int code : new int[]{ResultCode.PARTITION_UNAVAILABLE, ResultCode.INVALID_NODE_ERROR, ResultCode.TIMEOUT,
                ResultCode.SERVER_NOT_AVAILABLE, ResultCode.KEY_BUSY, ResultCode.DEVICE_OVERLOAD}) {
            assertThat(AerospikeAccess.isTransient(new AerospikeException(code))).as(ResultCode.getResultString(code))
                    .isTrue();
        }
        assertThat(AerospikeAccess.isTransient(new AerospikeException(ResultCode.FILTERED_OUT))).isFalse();
        assertThat(AerospikeAccess.isTransient(new AerospikeException(ResultCode.PARAMETER_ERROR))).isFalse();
    }

    private static BatchRecord batchRecord(Key key, int resultCode, Record record) {
        BatchRecord result = new BatchRecord(key, true);
        result.resultCode = resultCode;
        result.record = record;
        return result;
    }
}
