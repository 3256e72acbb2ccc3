package io.github.lockmanager.store.aerospike;

import com.aerospike.client.cdt.ListPolicy;
import com.aerospike.client.cdt.MapPolicy;
import com.aerospike.client.cdt.MapReturnType;
import com.aerospike.client.exp.Exp;
import com.aerospike.client.exp.ListExp;
import com.aerospike.client.exp.MapExp;
import com.aerospike.client.cdt.ListReturnType;
import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockRequest;
import io.github.lockmanager.store.support.FencingEpoch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.github.lockmanager.store.aerospike.AerospikeLayout.ABORT;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.FENCE;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.HOLDERS;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.MODE_SHIFT;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.TAG;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.TIME_MASK;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.TOKEN;
import static io.github.lockmanager.store.aerospike.AerospikeLayout.modeBase;

/**
 * The server-side decisions of the store, as Aerospike expressions over the key's record
 * ({@link AerospikeLayout}). Each is evaluated inside one operation on the record, so nothing can change the record
 * between a decision and the write it guards.
 *
 * <p>Time is the server's: a record's last-update time plus the time since then ({@link #NOW}), which is also right
 * for a record not yet written (last-update time 0). A write's decision is its filter, evaluated once before the
 * write; its bin operations see the same time or a later one, and a later time only ends more leases, so they
 * never undo what the filter decided.
 */
final class AerospikeExpressions {
    /** The server's clock in ms. */
    static final Exp NOW = Exp.add(Exp.div(Exp.lastUpdate(), Exp.val(1_000_000L)), Exp.sinceUpdate());

    private static final Exp EMPTY_MAP = Exp.val(Map.of());
    /** The holders map, empty for a new record. */
    static final Exp HOLDERS_OR_EMPTY = Exp.cond(Exp.binExists(HOLDERS), Exp.mapBin(HOLDERS), EMPTY_MAP);

    private AerospikeExpressions() {
    }

    /** The holders of {@code mode} whose lease ends at {@code now} or later. */
    static Exp liveCount(LockMode mode, Exp now, Exp holders) {
        return MapExp.getByValueRange(MapReturnType.COUNT, tagList(Exp.add(Exp.val(modeBase(mode)), now)),
                Exp.val(List.of(modeBase(mode) + (1L << MODE_SHIFT))), holders);
    }

    /** Whether no live holder's mode conflicts with {@code mode}. */
    static Exp freeFor(LockMode mode, Exp now, Exp holders) {
        List<Exp> counts = new ArrayList<>();
        for (LockMode other : LockMode.values()) {
            if (other.conflictsWith(mode)) {
                counts.add(liveCount(other, now, holders));
            }
        }
        Exp sum = counts.size() == 1 ? counts.get(0) : Exp.add(counts.toArray(new Exp[0]));
        return Exp.eq(sum, Exp.val(0L));
    }

    /** Whether the key has a live holder in any mode. */
    static Exp anyLive(Exp now, Exp holders) {
        return Exp.not(freeFor(LockMode.EXCLUSIVE, now, holders));
    }

    /** Whether {@code token} has an entry in the holders, live or not. */
    static Exp present(String token, Exp holders) {
        return Exp.gt(MapExp.getByKey(MapReturnType.COUNT, Exp.Type.INT, Exp.val(token), holders), Exp.val(0L));
    }

    /** Whether {@code token} has an entry whose lease ends at {@code now} or later. */
    static Exp live(String token, Exp now, Exp holders) {
        return Exp.and(present(token, holders),
                Exp.ge(Exp.intAnd(tagOf(token, holders), Exp.val(TIME_MASK)), now));
    }

    private static Exp entryOf(String token, Exp holders) {
        return MapExp.getByKey(MapReturnType.VALUE, Exp.Type.LIST, Exp.val(token), holders);
    }

    private static Exp tagOf(String token, Exp holders) {
        return ListExp.getByIndex(ListReturnType.VALUE, Exp.Type.INT, Exp.val(TAG), entryOf(token, holders));
    }

    private static Exp tokenOf(String token, Exp holders) {
        return ListExp.getByIndex(ListReturnType.VALUE, Exp.Type.INT, Exp.val(TOKEN), entryOf(token, holders));
    }

    /** A list of one tag, the bound of a value range of the holders map. */
    private static Exp tagList(Exp tag) {
        return ListExp.set(ListPolicy.Default, Exp.val(0), tag, Exp.val(List.of(0L)));
    }

    /**
     * Whether an acquisition is granted: the request's own entry is there (a repeated call after an unanswered one),
     * or, in a hand-off, the predecessor's it takes over (and nothing else: a hand-off whose predecessor is gone is
     * refused, so that its node learns the loss), or no live holder conflicts with its mode (and for a permit, the
     * key's permit holders asked for the same number and leave one free).
     */
    static Exp granted(LockRequest request, Exp now) {
        Exp holders = HOLDERS_OR_EMPTY;
        List<Exp> ways = new ArrayList<>(List.of(present(request.handle().ownerToken(), holders)));
        if (request.predecessor() != null) {
            ways.add(present(request.predecessor().ownerToken(), holders));
            return Exp.or(ways.toArray(new Exp[0]));
        }
        Exp free = freeFor(request.mode(), now, holders);
        if (request.mode() == LockMode.PERMIT) {
            // the key's permit holders all asked for the number in the permits bin: the request must ask for it too,
            // and find one of them free, unless no permit holder is live
            Exp taken = liveCount(LockMode.PERMIT, now, holders);
            Exp sameNumber = Exp.cond(Exp.binExists(AerospikeLayout.PERMITS),
                    Exp.eq(Exp.intBin(AerospikeLayout.PERMITS), Exp.val((long) request.permits())), Exp.val(false));
            free = Exp.and(free, Exp.or(Exp.eq(taken, Exp.val(0L)),
                    Exp.and(sameNumber, Exp.lt(taken, Exp.val((long) request.permits())))));
        }
        ways.add(free);
        return Exp.or(ways.toArray(new Exp[0]));
    }

    /**
     * The new value of {@link AerospikeLayout#FENCE} for a granted request, unless the entry exists: the kit's epoch
     * rule, one more than the counter or {@code TOKENS_PER_MILLISECOND × now}, whichever is higher. The second term is
     * taken on every grant, not only on a new record: a crash can bring back an older version of the record, whose
     * counter is below tokens granted since (a Community Edition namespace acknowledges writes before they reach its
     * device).
     */
    static Exp nextFence(LockRequest request) {
        Exp epoch = Exp.mul(NOW, Exp.val(FencingEpoch.TOKENS_PER_MILLISECOND));
        return Exp.cond(present(request.handle().ownerToken(), HOLDERS_OR_EMPTY), Exp.unknown(),
                Exp.binExists(FENCE), Exp.max(Exp.add(Exp.intBin(FENCE), Exp.val(1L)), epoch),
                epoch);
    }

    /**
     * The holders after a grant: expired entries and the predecessor's gone, the request's entry put with its lease
     * from now and its token (kept when the entry was there, else the fencing counter just moved).
     */
    static Exp grantedHolders(LockRequest request, Duration lease, List<Object> entryTemplate) {
        String token = request.handle().ownerToken();
        Exp holders = HOLDERS_OR_EMPTY;
        Exp tag = Exp.add(Exp.val(modeBase(request.mode()) + lease.toMillis()), NOW);
        Exp fence = Exp.cond(present(token, holders), tokenOf(token, holders), Exp.intBin(FENCE));
        Exp entry = ListExp.set(ListPolicy.Default, Exp.val(TAG), tag,
                ListExp.set(ListPolicy.Default, Exp.val(TOKEN), fence,
                        ListExp.set(ListPolicy.Default, Exp.val(AerospikeLayout.LOCK_TIME), NOW,
                                Exp.val(entryTemplate))));
        Exp kept = withoutExpired(holders, NOW);
        if (request.predecessor() != null) {
            kept = MapExp.removeByKey(Exp.val(request.predecessor().ownerToken()), kept);
        }
        return MapExp.put(MapPolicy.Default, Exp.val(token), entry, kept);
    }

    /** The holders without the entries whose lease ended before {@code now}, in every mode. */
    static Exp withoutExpired(Exp holders, Exp now) {
        Exp kept = holders;
        for (LockMode mode : LockMode.values()) {
            kept = MapExp.removeByValueRange(MapReturnType.NONE, Exp.val(List.of(modeBase(mode))),
                    tagList(Exp.add(Exp.val(modeBase(mode)), now)), kept);
        }
        return kept;
    }

    /** The holders after a renewal of {@code token}'s entry: its lease ends {@code lease} from now, its mode kept. */
    static Exp renewedHolders(String token, Duration lease) {
        Exp holders = Exp.mapBin(HOLDERS);
        Exp tag = Exp.add(Exp.sub(tagOf(token, holders), Exp.intAnd(tagOf(token, holders), Exp.val(TIME_MASK))),
                NOW, Exp.val(lease.toMillis()));
        return MapExp.put(MapPolicy.Default, Exp.val(token),
                ListExp.set(ListPolicy.Default, Exp.val(TAG), tag, entryOf(token, holders)), holders);
    }

    /**
     * Whether the record would live no shorter with a TTL of {@code seconds}: it is new, or its TTL is not longer
     * (a holder with a longer lease set it).
     */
    static Exp ttlAtMost(int seconds) {
        return Exp.or(Exp.not(Exp.binExists(HOLDERS)), Exp.le(Exp.ttl(), Exp.val(seconds)));
    }

    /** Whether an abort was asked after {@code handle}'s grant: its token is not above the abort mark. */
    static Exp abortAsked(LockHandle handle) {
        return Exp.and(Exp.binExists(ABORT),
                Exp.le(tokenOf(handle.ownerToken(), Exp.mapBin(HOLDERS)), Exp.intBin(ABORT)));
    }
}
