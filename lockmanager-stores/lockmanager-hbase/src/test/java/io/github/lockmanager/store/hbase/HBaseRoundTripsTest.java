package io.github.lockmanager.store.hbase;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * RPCs per lock+unlock, counted by the region servers: 2 on a key new to the table as on a key used before (the
 * fencing epoch costs no write of its own), and the tokens still rise across a key's lives.
 */
class HBaseRoundTripsTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final int CYCLES = 100;

    private final HBaseLockStore store = HBaseCluster.store("lockmanager_round_trips");
    private final String client = "c" + UUID.randomUUID().toString().substring(0, 8);

    @Test
    void aNewKeyCostsTwoRpcsPerCycleAsAKnownOneDoes() throws Exception {
        assumeTrue(HBaseCluster.regionServerRequests() >= 0, "RPCs are counted on the mini cluster only");
        LockKey known = LockKey.xdc(client, "known");
        cycle(known, "warm");
        for (int i = 0; i < CYCLES; i++) {
            // every region's location cached first, so that only the cycles' own RPCs are counted below
            cycle(LockKey.xdc(client, "warm-" + i), "warm");
        }

        int[] round = {0};
        long fresh = leastRpcs(() -> {
            round[0]++;
            for (int i = 0; i < CYCLES; i++) {
                cycle(LockKey.xdc(client, "fresh-" + round[0] + "-" + i), "fresh");
            }
            return () -> { };
        });
        long again = leastRpcs(() -> {
            for (int i = 0; i < CYCLES; i++) {
                cycle(known, "again-" + i);
            }
            return () -> { };
        });

        assertThat(again).as("RPCs of %d cycles on a known key", CYCLES).isEqualTo(2L * CYCLES);
        assertThat(fresh).as("RPCs of %d cycles on new keys", CYCLES).isEqualTo(2L * CYCLES);
    }

    @Test
    void tokensRiseFromAKeysFirstHolderOnWhetherItReleasedOrNot() throws Exception {
        LockKey key = LockKey.xdc(client, "lives");
        LockRecord first = acquire(key, "first");
        // the first holder's token stands for the counter's epoch, and a read of the row says the same
        assertThat(store.read(key)).hasValueSatisfying(r -> assertThat(r.fencingToken()).isEqualTo(first.fencingToken()));
        assertThat(store.releaseEvery(key)).hasSize(1);
        LockRecord afterForce = acquire(key, "second");
        assertThat(afterForce.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(store.release(afterForce.handle())).isTrue();
        LockRecord third = acquire(key, "third");
        assertThat(third.fencingToken()).isEqualTo(afterForce.fencingToken() + 1);
        assertThat(store.release(third.handle())).isTrue();

        LockKey other = LockKey.xdc(client, "released");
        LockRecord one = acquire(other, "one");
        assertThat(store.release(one.handle())).isTrue();
        LockRecord two = acquire(other, "two");
        assertThat(two.fencingToken()).as("after a release that stored the first token").isEqualTo(one.fencingToken() + 1);
        assertThat(store.release(two.handle())).isTrue();
    }

    @Test
    void aFreshGrantHandedOverOrReleasedLeavesNothingKept() throws Exception {
        int kept = store.freshTokensKept();
        LockKey key = LockKey.xdc(client, "handed-" + UUID.randomUUID());
        LockRecord first = acquire(key, "first");
        assertThat(store.freshTokensKept()).as("a fresh grant's token is kept for its release").isEqualTo(kept + 1);
        var next = store.acquire(new LockRequest(new LockHandle(key, "next:" + UUID.randomUUID()), "node", "thread",
                LockMode.EXCLUSIVE, first.handle()), LEASE);
        assertThat(next.isAcquired()).isTrue();
        assertThat(next.record().fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(store.freshTokensKept()).as("the predecessor is never released: nothing of it is kept")
                .isEqualTo(kept);
        assertThat(store.release(next.record().handle())).isTrue();
        assertThat(store.freshTokensKept()).isEqualTo(kept);
    }

    /**
     * What docs/permits.md says a permit costs here, counted by the region servers on a key used before: a grant what a
     * shared holder's grant costs, a refusal by another node the failed write and a read.
     */
    @Test
    void aPermitCostsWhatASharedHolderDoesAndARefusalTwoRpcs() throws Exception {
        assumeTrue(HBaseCluster.regionServerRequests() >= 0, "RPCs are counted on the mini cluster only");
        LockKey key = LockKey.xdc(client, "permits");
        LockHandle warm = new LockHandle(key, "warm");
        assertThat(store.acquire(LockRequest.permit(warm, "node", "thread", 2), LEASE).isAcquired()).isTrue();
        assertThat(store.release(warm)).isTrue();
        LockKey readKey = LockKey.xdc(client, "readers");
        LockHandle reader = new LockHandle(readKey, "warm");
        assertThat(store.acquire(LockRequest.of(reader, "node", "thread", LockMode.SHARED), LEASE).isAcquired()).isTrue();
        assertThat(store.release(reader)).isTrue();

        long sharedGrant = leastRpcs(() -> {
            LockHandle shared = new LockHandle(readKey, "reader-" + UUID.randomUUID());
            assertThat(store.acquire(LockRequest.of(shared, "node", "thread", LockMode.SHARED), LEASE).isAcquired())
                    .isTrue();
            return () -> assertThat(store.release(shared)).isTrue();
        });
        long granted = leastRpcs(() -> {
            LockHandle permit = new LockHandle(key, "permit-" + UUID.randomUUID());
            assertThat(store.acquire(LockRequest.permit(permit, "node", "thread", 1), LEASE).isAcquired()).isTrue();
            return () -> assertThat(store.release(permit)).isTrue();
        });
        LockHandle first = new LockHandle(key, "first");
        assertThat(store.acquire(LockRequest.permit(first, "node", "thread", 1), LEASE).isAcquired()).isTrue();
        HBaseLockStore otherNode = HBaseLockStore.builder(HBaseCluster.connection()).tableName("lockmanager_round_trips")
                .build();
        otherNode.read(key);
        AcquireResult[] refused = new AcquireResult[1];
        long refusal = leastRpcs(() -> {
            refused[0] = otherNode.acquire(LockRequest.permit(new LockHandle(key, "other"), "other", "thread", 1), LEASE);
            return () -> { };
        });

        assertThat(refused[0].isAcquired()).isFalse();
        assertThat(refused[0].record().handle()).isEqualTo(first);
        assertThat(granted).as("RPCs of a permit granted").isEqualTo(sharedGrant);
        assertThat(refusal).as("RPCs of a permit refused on another node").isEqualTo(2);
        assertThat(store.release(first)).isTrue();
    }

    /**
     * The least RPCs of three runs of {@code counted}, each undone after it was counted: the mini cluster's master reads
     * meta now and then on its own, and such a background RPC only ever adds to a window.
     */
    private static long leastRpcs(Counted counted) throws Exception {
        long least = Long.MAX_VALUE;
        for (int run = 0; run < 3; run++) {
            long before = HBaseCluster.regionServerRequests();
            Undo undo = counted.run();
            least = Math.min(least, HBaseCluster.regionServerRequests() - before);
            undo.run();
        }
        return least;
    }

    private interface Counted {
        Undo run() throws Exception;
    }

    private interface Undo {
        void run() throws Exception;
    }

    private void cycle(LockKey key, String owner) throws Exception {
        LockRecord granted = acquire(key, owner);
        assertThat(store.release(granted.handle())).isTrue();
    }

    private LockRecord acquire(LockKey key, String owner) throws Exception {
        var result = store.acquire(LockRequest.of(new LockHandle(key, owner + ":" + UUID.randomUUID()), "node",
                "thread", LockMode.EXCLUSIVE), LEASE);
        assertThat(result.isAcquired()).as("acquire %s", key).isTrue();
        return result.record();
    }
}
