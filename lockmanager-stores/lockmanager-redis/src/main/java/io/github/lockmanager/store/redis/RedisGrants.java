package io.github.lockmanager.store.redis;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockHandle;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Grants and releases, one script each. With replica confirmation the {@code WAIT} goes in the grant's round trip, and
 * a grant the replicas did not confirm is withdrawn (owner-checked) and tried again within the operation timeout. A
 * release call carries a nonce, so that its own attempt sent again (a retry, or Lettuce after a reconnect) answers as
 * the first did. Thread-safe.
 */
final class RedisGrants {
    private static final Logger log = LoggerFactory.getLogger(RedisGrants.class);

    private final RedisAccess access;
    private final RedisLayout layout;
    private final ReplicaConfirmation confirmation;
    private final RedisQuarantine quarantine;

    RedisGrants(RedisAccess access, ReplicaConfirmation confirmation, RedisQuarantine quarantine) {
        this.access = access;
        this.layout = access.layout();
        this.confirmation = confirmation;
        this.quarantine = quarantine;
    }

    AcquireResult acquire(LockRequest request, Duration lease) throws LockManagerException {
        quarantine.checkLease(lease);
        LockHandle handle = request.handle();
        String hash = layout.hash(handle.key());
        String[] keys = {hash, RedisIncarnation.marker(layout.prefix(), hash, access.isCluster())};
        String[] restart = quarantine.args();
        String[] args = {RedisLayout.holderField(handle), RedisEntries.mode(request.mode(), request.permits()),
                Long.toString(lease.toMillis()), Long.toString(access.retentionMillis()),
                request.predecessor() == null ? "" : RedisLayout.holderField(request.predecessor()),
                RedisEntries.tail(request.nodeId(), request.threadName()), restart[0], restart[1],
                handle.key().isRequests() ? "1" : "0"};
        return access.call("acquire lock '" + handle.key().name() + "' " + request.mode(), timeout -> {
            long deadline = RedisAccess.deadline(timeout);
            RedisFuture<Object> sent = access.send(RedisScripts.ACQUIRE, keys, args);
            RedisFuture<Long> confirmed = confirmation.send(access);
            boolean[] resent = {false};
            List<?> answer = access.answer(sent, deadline, RedisScripts.ACQUIRE, keys, resent, args);
            long abortMark = (Long) answer.get(3);
            if ((Long) answer.get(0) == 2) {
                // the server may have lost grants: no one is granted a new lock before their holders are told
                quarantine.refused(handle.key().name(),
                        Long.parseLong((String) answer.get(5)), (Long) answer.get(2));
                return AcquireResult.heldBy(null);
            }
            if ((Long) answer.get(0) == 0 && ((String) answer.get(4)).isEmpty()) {
                // a hand-off whose predecessor's entry is gone: refused, no holder to name
                return AcquireResult.heldBy(null);
            }
            if ((Long) answer.get(0) == 0) {
                return AcquireResult.heldBy(RedisEntries.record(handle.key(),
                        RedisLayout.ownerOf((String) answer.get(4)), (String) answer.get(1), abortMark));
            }
            LockRecord mine = RedisEntries.record(handle.key(), handle.ownerToken(), (String) answer.get(1), abortMark);
            if (resent[0]) {
                // the WAIT sent with the first attempt went ahead of the grant
                confirmed = confirmation.send(access);
            }
            boolean kept = false;
            try {
                kept = confirmation.confirmed(confirmed, deadline);
            } finally {
                if (!kept) {
                    withdraw(new String[] {hash}, handle, deadline);
                }
            }
            if (!kept) {
                throw new RedisException("the grant of lock '" + handle.key().name() + "' was not confirmed by "
                        + confirmation.replicas() + " replica(s) within " + confirmation.timeout().toMillis()
                        + " ms, and was withdrawn");
            }
            return AcquireResult.acquired(mine);
        });
    }

    /** {@code true} if the entry was live when this call (any attempt of it) removed it. */
    boolean release(LockHandle handle) throws LockManagerException {
        String[] keys = {layout.hash(handle.key())};
        String[] args = releaseArgs(handle);
        return access.call("release lock '" + handle.key().name() + "'",
                timeout -> (Long) access.<List<?>>run(RedisScripts.RELEASE, timeout, keys, args).get(0) == 1);
    }

    private String[] releaseArgs(LockHandle handle) {
        return new String[] {RedisLayout.holderField(handle), layout.channel(), handle.key().storageKey(),
                Long.toHexString(ThreadLocalRandom.current().nextLong())};
    }

    /**
     * Removes a grant the caller will not be told of, waiting for it until {@code deadline} at most: sent on the
     * connection the grant came by, it goes ahead of a retry's acquisition, whether or not it is answered in time.
     */
    private void withdraw(String[] keys, LockHandle handle, long deadline) {
        try {
            String[] args = releaseArgs(handle);
            access.answer(access.send(RedisScripts.RELEASE, keys, args), deadline, RedisScripts.RELEASE, keys, args);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            log.warn("The withdrawal of an unconfirmed grant of lock '{}' failed ({}): the key stays taken until its "
                    + "lease ends", handle.key().name(), e.toString());
        }
    }
}
