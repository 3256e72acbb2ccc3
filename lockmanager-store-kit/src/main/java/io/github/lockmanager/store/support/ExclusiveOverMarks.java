package io.github.lockmanager.store.support;

import io.github.lockmanager.spi.AcquireResult;
import io.github.lockmanager.spi.LockRecord;

import java.util.Optional;

/**
 * The order of an exclusive acquisition on a store that keeps a key's non-exclusive holders apart from its exclusive
 * record, behind a mark ({@link HolderMarks}): the store's conditional write of a free key first (a hand-off
 * included); when it does not decide, a read of the key; a mark whose holders have all gone (the last one crashed
 * before taking the mark down) is taken over, and a mark with a live holder refuses, naming it; a take-over that
 * another writer won is read again. Each store gives only its atomic steps; a store that decides all of it in one
 * operation on the server (Aerospike's) has no use for this. Stateless; the steps run on the caller's thread.
 */
public final class ExclusiveOverMarks {
    private ExclusiveOverMarks() {
    }

    /**
     * The atomic steps of one exclusive acquisition; each may throw the store's failure, which ends it.
     *
     * @param <K> what the store reads of a key (its row, its record)
     * @param <X> the store's I/O failure
     */
    public interface Steps<K, X extends Exception> {
        /**
         * The conditional write of the key if it is free (or the predecessor's, in a hand-off): the answer when the
         * write decides (granted, or refused naming the holder it returned), or {@code null} when the key must be read.
         */
        AcquireResult writeIfFree() throws X;

        /** The key as it stands now. */
        K read() throws X;

        /** Whether {@code key} is a mark for holders in other modes. */
        boolean isMark(K key);

        /** A live holder behind the mark {@code key}, if any (a store may have to ask for it). */
        Optional<LockRecord> liveHolderBehind(K key) throws X;

        /**
         * The conditional write that takes over the mark {@code key}, none of whose holders is live; {@code null} if
         * another writer changed the key first.
         */
        AcquireResult takeOver(K key) throws X;

        /**
         * The refusal for {@code key} as read, naming its holder, or the grant when the holder is this very
         * acquisition (an earlier attempt whose outcome could not be seen applied after all; see
         * {@link AcquireResult#fromRecord}).
         */
        AcquireResult refusal(K key) throws X;
    }

    /** Runs the steps of one exclusive acquisition in their order. */
    public static <K, X extends Exception> AcquireResult acquire(Steps<K, X> steps) throws X {
        AcquireResult written = steps.writeIfFree();
        if (written != null) {
            return written;
        }
        K key = steps.read();
        if (steps.isMark(key)) {
            Optional<LockRecord> holder = steps.liveHolderBehind(key);
            if (holder.isPresent()) {
                return AcquireResult.heldBy(holder.get());
            }
            AcquireResult takenOver = steps.takeOver(key);
            if (takenOver != null) {
                return takenOver;
            }
            // another writer took the key meanwhile: name it, as any refusal does
            key = steps.read();
        }
        return steps.refusal(key);
    }
}
