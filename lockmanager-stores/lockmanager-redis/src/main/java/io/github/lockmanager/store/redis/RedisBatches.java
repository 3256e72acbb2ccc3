package io.github.lockmanager.store.redis;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.spi.HoldState;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.store.redis.RedisScripts.Script;
import io.lettuce.core.RedisFuture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Renewal and check of many handles: one script call for all of them on one server, one per hash slot on a cluster
 * (a script touches one slot), sent together, so a batch costs one round trip either way. With replica confirmation,
 * a renewal is counted only once the replicas have it ({@code WAIT} sent in the same round trip); until then its
 * handles are left out of the answer, which the manager counts as unconfirmed and asks again.
 */
final class RedisBatches {
    private static final HoldState[] STATES = {HoldState.LOST, HoldState.HELD, HoldState.ABORT_REQUESTED};

    private final RedisAccess access;
    private final ReplicaConfirmation confirmation;

    RedisBatches(RedisAccess access, ReplicaConfirmation confirmation) {
        this.access = access;
        this.confirmation = confirmation;
    }

    Map<LockHandle, HoldState> renew(List<LockHandle> handles, Duration lease) throws LockManagerException {
        String[] head = {Long.toString(lease.toMillis()), Long.toString(access.retentionMillis())};
        return run("renew " + handles.size() + " lock(s)", RedisScripts.RENEW, handles, head, true);
    }

    Map<LockHandle, HoldState> check(List<LockHandle> handles) throws LockManagerException {
        return run("check " + handles.size() + " lock(s)", RedisScripts.CHECK, handles, new String[0], false);
    }

    private Map<LockHandle, HoldState> run(String what, Script script, List<LockHandle> handles, String[] head,
                                           boolean writes) throws LockManagerException {
        if (handles.isEmpty()) {
            return new HashMap<>();
        }
        Map<Integer, List<LockHandle>> bySlot = new LinkedHashMap<>();
        for (LockHandle handle : handles) {
            bySlot.computeIfAbsent(access.slotOf(access.layout().hash(handle.key())), slot -> new ArrayList<>())
                    .add(handle);
        }
        return access.call(what, timeout -> {
            long deadline = RedisAccess.deadline(timeout);
            List<Call> calls = new ArrayList<>(bySlot.size());
            for (List<LockHandle> group : bySlot.values()) {
                calls.add(new Call(group, head));
                calls.get(calls.size() - 1).send(script);
            }
            RedisFuture<Long> confirmed = writes ? confirmation.send(access) : null;
            Map<LockHandle, HoldState> states = new HashMap<>(handles.size() * 2);
            for (Call call : calls) {
                List<?> answer = access.answer(call.sent, deadline, script, call.keys, call.args);
                for (int i = 0; i < call.group.size(); i++) {
                    states.put(call.group.get(i), STATES[((Long) answer.get(i)).intValue()]);
                }
            }
            if (confirmed != null && !confirmation.confirmed(confirmed, deadline)) {
                // what the server answered LOST is so; a renewal the replicas may lack is not counted yet
                states.values().removeIf(state -> state != HoldState.LOST);
            }
            return states;
        });
    }

    /** One script call: a slot's handles, their hashes and arguments. */
    private final class Call {
        final List<LockHandle> group;
        final String[] keys;
        final String[] args;
        RedisFuture<Object> sent;

        Call(List<LockHandle> group, String[] head) {
            this.group = group;
            this.keys = new String[group.size()];
            this.args = new String[head.length + group.size()];
            System.arraycopy(head, 0, args, 0, head.length);
            for (int i = 0; i < group.size(); i++) {
                keys[i] = access.layout().hash(group.get(i).key());
                args[head.length + i] = RedisLayout.holderField(group.get(i));
            }
        }

        void send(Script script) {
            sent = access.send(script, keys, args);
        }
    }
}
