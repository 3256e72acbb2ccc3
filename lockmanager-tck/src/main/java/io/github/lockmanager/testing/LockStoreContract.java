package io.github.lockmanager.testing;

import io.github.lockmanager.testing.support.BusyThreadInterrupts;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.LockStatus;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockKey;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.spi.LockStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The rules of the store SPI ({@link LockStore}'s javadoc), on a real store in real time. Every test uses keys of
 * its own client id, so tests may share one store. Run through {@link StoreTck}.
 */
public abstract class LockStoreContract {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration SHORT_LEASE = Duration.ofSeconds(1);

    private String clientId;

    protected abstract LockStore store();

    @BeforeEach
    void newClient() {
        clientId = "spi" + UUID.randomUUID().toString().substring(0, 8);
    }

    private LockKey key(String name) {
        return LockKey.xdc(clientId, name);
    }

    /** Every call a new acquisition (its own owner token), with node and thread named after {@code owner}. */
    private static LockRequest request(LockKey key, String owner) {
        return LockRequest.of(new LockHandle(key, owner + "-" + UUID.randomUUID()), "node-" + owner,
                "thread-" + owner, LockMode.EXCLUSIVE);
    }

    private LockRecord acquired(LockRequest request, Duration lease) throws Exception {
        AcquireResult result = store().acquire(request, lease);
        assertThat(result.isAcquired()).as("acquired %s", request.key()).isTrue();
        return result.record();
    }

    @Test
    void aFreeKeyIsAcquiredWithItsDetailsAndAHeldOneIsRefusedNamingTheHolder() throws Exception {
        LockRequest first = request(key("k"), "a");
        LockRecord held = acquired(first, LEASE);

        AcquireResult second = store().acquire(request(key("k"), "b"), LEASE);

        assertThat(held.handle()).isEqualTo(first.handle());
        assertThat(held.nodeId()).isEqualTo("node-a");
        assertThat(held.threadName()).isEqualTo("thread-a");
        assertThat(held.status()).isEqualTo(LockStatus.RUNNING);
        assertThat(held.expirationTime()).isAfter(held.lockTime());
        assertThat(second.isAcquired()).isFalse();
        assertThat(second.record()).isNotNull().extracting(LockRecord::handle).isEqualTo(first.handle());
        assertThat(store().read(key("k"))).get().extracting(LockRecord::fencingToken).isEqualTo(held.fencingToken());
    }

    @Test
    void onlyTheOwningAcquisitionCanRelease() throws Exception {
        LockRecord held = acquired(request(key("k"), "a"), LEASE);
        LockHandle stranger = new LockHandle(key("k"), "stranger");

        assertThat(store().release(stranger)).isFalse();
        assertThat(store().read(key("k"))).isPresent();
        assertThat(store().release(held.handle())).isTrue();
        assertThat(store().read(key("k"))).isEmpty();
        assertThat(store().release(held.handle())).as("a second release").isFalse();
    }

    @Test
    void onlyTheOwningAcquisitionCanRenewAndEveryLockOfABatchIsAnswered() throws Exception {
        List<LockHandle> handles = new ArrayList<>();
        for (int i = 0; i < 37; i++) {
            handles.add(acquired(request(key("k" + i), "a"), LEASE).handle());
        }
        LockHandle released = handles.get(3);
        store().release(released);
        LockHandle aborted = handles.get(5);
        store().markAbort(aborted.key());
        LockHandle stranger = new LockHandle(handles.get(7).key(), "stranger");
        handles.add(stranger);

        Map<LockHandle, HoldState> renewed = store().renew(handles, LEASE);
        Map<LockHandle, HoldState> checked = store().check(handles);

        for (Map<LockHandle, HoldState> answers : List.of(renewed, checked)) {
            assertThat(answers).hasSize(38).containsEntry(released, HoldState.LOST)
                    .containsEntry(aborted, HoldState.ABORT_REQUESTED).containsEntry(stranger, HoldState.LOST)
                    .containsEntry(handles.get(0), HoldState.HELD);
            assertThat(answers.values()).filteredOn(s -> s == HoldState.HELD).hasSize(35);
        }
        assertThat(store().read(handles.get(7).key())).as("the stranger's renewal took nothing").get()
                .extracting(LockRecord::handle).isEqualTo(handles.get(7));
    }

    @Test
    void renewalExtendsTheLease() throws Exception {
        LockRecord held = acquired(request(key("k"), "a"), Duration.ofSeconds(2));
        for (int i = 0; i < 4; i++) {
            TimeUnit.MILLISECONDS.sleep(500); // let half a lease pass: what is asserted is that the lock outlives it
            assertThat(store().renew(List.of(held.handle()), Duration.ofSeconds(2))).containsEntry(held.handle(),
                    HoldState.HELD);
        }
        assertThat(store().read(key("k"))).as("held for longer than one lease").isPresent();
    }

    @Test
    void anAbortMarksOnlyALiveLockAndKeepsItsOwner() throws Exception {
        assertThat(store().markAbort(key("free"))).isFalse();
        LockRecord held = acquired(request(key("k"), "a"), LEASE);

        assertThat(store().markAbort(key("k"))).isTrue();

        LockRecord marked = store().read(key("k")).orElseThrow();
        assertThat(marked.status()).isEqualTo(LockStatus.ABORT);
        assertThat(marked.handle()).isEqualTo(held.handle());
        assertThat(store().check(List.of(held.handle()))).containsEntry(held.handle(), HoldState.ABORT_REQUESTED);
        assertThat(store().release(held.handle())).isTrue();
        assertThat(acquired(request(key("k"), "b"), LEASE).status()).as("the next holder starts clean")
                .isEqualTo(LockStatus.RUNNING);
    }

    @Test
    void aLockIsFreeAfterItsLeaseNotBeforeAndItsFormerOwnerCanNoLongerTouchIt() throws Exception {
        long start = System.nanoTime();
        LockRecord old = acquired(request(key("k"), "old"), SHORT_LEASE);
        assertThat(store().acquire(request(key("k"), "new"), LEASE).isAcquired()).as("within the lease").isFalse();

        await().atMost(Duration.ofSeconds(20)).until(() -> store().acquire(request(key("k"), "new"), LEASE).isAcquired());
        long freeAfter = (System.nanoTime() - start) / 1_000_000;
        LockRecord current = store().read(key("k")).orElseThrow();
        System.out.printf("%s: a %d ms lease was free again after %d ms%n", store(), SHORT_LEASE.toMillis(), freeAfter);

        assertThat(freeAfter).isGreaterThanOrEqualTo(SHORT_LEASE.toMillis());
        assertThat(store().release(old.handle())).isFalse();
        assertThat(store().renew(List.of(old.handle()), LEASE)).containsEntry(old.handle(), HoldState.LOST);
        assertThat(store().check(List.of(old.handle()))).containsEntry(old.handle(), HoldState.LOST);
        assertThat(store().read(key("k"))).get().extracting(LockRecord::handle).isEqualTo(current.handle());
        assertThat(current.fencingToken()).isGreaterThan(old.fencingToken());
    }

    @Test
    void fencingTokensIncreaseOverReleasesAndExpiry() throws Exception {
        long last = 0;
        for (int i = 0; i < 10; i++) {
            LockRecord held = acquired(request(key("k"), "o" + i), LEASE);
            assertThat(held.fencingToken()).isGreaterThan(last);
            last = held.fencingToken();
            store().release(held.handle());
        }
        acquired(request(key("k"), "expiring"), SHORT_LEASE);
        await().atMost(Duration.ofSeconds(20)).until(() -> store().read(key("k")).isEmpty());
        assertThat(acquired(request(key("k"), "after-expiry"), LEASE).fencingToken()).isGreaterThan(last);
    }

    @Test
    void anAcquireRepeatedAfterAnUnansweredOneFindsItsOwnLock() throws Exception {
        // what a retry sees when the first attempt applied but its answer was lost
        LockRequest request = request(key("k"), "a");
        LockRecord first = acquired(request, LEASE);
        AcquireResult again = store().acquire(request, LEASE);
        assertThat(again.isAcquired()).as("never 'held by someone else' for our own write").isTrue();
        assertThat(again.record().fencingToken()).isEqualTo(first.fencingToken());
    }

    /** A request as {@link #request} makes it, taking over {@code predecessor}'s record. */
    private static LockRequest handOff(LockHandle predecessor, String owner) {
        LockRequest request = request(predecessor.key(), owner);
        return new LockRequest(request.handle(), request.nodeId(), request.threadName(), request.mode(), predecessor);
    }

    @Test
    void aRequestNamingTheHolderAsPredecessorTakesItsRecordOverWithAHigherToken() throws Exception {
        LockRecord held = acquired(request(key("k"), "a"), LEASE);
        LockRequest next = handOff(held.handle(), "b");

        LockRecord taken = acquired(next, LEASE);

        assertThat(taken.handle()).isEqualTo(next.handle());
        assertThat(taken.nodeId()).isEqualTo("node-b");
        assertThat(taken.threadName()).isEqualTo("thread-b");
        assertThat(taken.status()).isEqualTo(LockStatus.RUNNING);
        assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
        assertThat(store().read(key("k"))).get().extracting(LockRecord::handle).isEqualTo(next.handle());
        assertThat(store().renew(List.of(held.handle()), LEASE)).containsEntry(held.handle(), HoldState.LOST);
        assertThat(store().release(held.handle())).as("the predecessor's release").isFalse();
        assertThat(store().read(key("k"))).get().extracting(LockRecord::handle).isEqualTo(next.handle());
        AcquireResult again = store().acquire(next, LEASE);
        assertThat(again.isAcquired()).as("the hand-off repeated after an unanswered one").isTrue();
        assertThat(again.record().fencingToken()).isEqualTo(taken.fencingToken());
        assertThat(store().release(next.handle())).isTrue();
    }

    @Test
    void aPredecessorThatIsNotTheHolderTakesNothingOver() throws Exception {
        LockRecord gone = acquired(request(key("k"), "a"), LEASE);
        store().release(gone.handle());
        LockRecord holder = acquired(request(key("k"), "b"), LEASE);

        AcquireResult refused = store().acquire(handOff(gone.handle(), "c"), LEASE);

        assertThat(refused.isAcquired()).isFalse();
        assertThat(refused.record()).isNotNull().extracting(LockRecord::handle).isEqualTo(holder.handle());
        assertThat(store().release(holder.handle())).isTrue();
    }

    /**
     * A hand-off is owner-checked as a release is: a key whose predecessor is gone is refused even when free, so that the
     * manager learns the predecessor lost its lock (force-released, say) instead of hiding it behind a fresh grant.
     */
    @Test
    void aHandOffWhosePredecessorIsGoneIsRefusedAndWritesNothingEvenOnAFreeKey() throws Exception {
        LockRecord gone = acquired(request(key("k"), "a"), LEASE);
        assertThat(store().releaseEvery(key("k"))).as("force-released").hasSize(1);
        LockRecord between = acquired(request(key("k"), "b"), LEASE);
        assertThat(store().release(between.handle())).isTrue();

        LockRequest handOff = handOff(gone.handle(), "c");
        AcquireResult refused = store().acquire(handOff, LEASE);

        assertThat(refused.isAcquired()).as("the predecessor's record is gone").isFalse();
        assertThat(refused.record()).as("no live holder to name").isNull();
        assertThat(store().read(key("k"))).as("nothing written").isEmpty();
        assertThat(store().renew(List.of(handOff.handle()), LEASE)).doesNotContainEntry(handOff.handle(), HoldState.HELD);
        LockRecord afresh = acquired(request(key("k"), "c"), LEASE);
        assertThat(afresh.fencingToken()).as("asked again without a predecessor").isGreaterThan(between.fencingToken());
        assertThat(store().release(afresh.handle())).isTrue();
    }

    @Test
    void everyInterruptReachesAThreadBusyWithTheStore() throws Exception {
        BusyThreadInterrupts.eachReachesTheThread(store(), clientId, 20);
    }

    @Test
    void theListingHoldsEveryLiveLockAndNothingElse() throws Exception {
        List<LockHandle> handles = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            handles.add(acquired(request(key("k" + i), "a"), LEASE).handle());
        }
        store().release(handles.get(0));
        acquired(request(key("expiring"), "a"), SHORT_LEASE);
        await().atMost(Duration.ofSeconds(20)).until(() -> store().read(key("expiring")).isEmpty());

        List<LockRecord> mine = store().list().stream().filter(r -> r.key().clientId().equals(clientId)).toList();

        assertThat(mine).extracting(LockRecord::handle).containsExactlyInAnyOrderElementsOf(handles.subList(1, 12));
    }
}
