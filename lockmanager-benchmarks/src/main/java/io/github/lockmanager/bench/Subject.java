package io.github.lockmanager.bench;

import io.github.lockmanager.spi.LockStore;

import java.util.Map;

/** One store under test, with the raw operations of the same store instance that serve as baselines. */
interface Subject extends AutoCloseable {
    String name();

    /** The initialized store. */
    LockStore store();

    /** What {@link #rawCycle} does, for the report. */
    String rawCycleDescription();

    /** The raw store operations one uncontended lock cycle needs: a conditional create and a conditional delete. */
    void rawCycle(String key, String owner) throws Exception;

    /** What {@link #rawSharedCycle} does, for the report. */
    String rawSharedCycleDescription();

    /**
     * The raw store operations a shared holder needs at the least, for a store with lock modes: add a holder record
     * of the key unless an exclusive owner is there, then remove it.
     */
    void rawSharedCycle(String key, String owner) throws Exception;

    /**
     * The store again with one setting changed, which trades some speed for something a user may want instead, so
     * that figure 2 shows what it costs.
     *
     * @param name        the setting as a user writes it
     * @param description what it changes
     */
    record Variant(String name, String description, LockStore store) {
    }

    /** The {@link Variant} figure 2 times beside the store; {@code null} when there is none. */
    default Variant variant() {
        return null;
    }

    /**
     * What {@link #peerCycle} replays: a peer library's lock+unlock protocol on the same store, as a second
     * baseline of figure 2; {@code null} when there is none.
     */
    default String peerCycleDescription() {
        return null;
    }

    /**
     * Whether figure 2's new-key rows compare with {@link #rawCycle} on new keys, where the store has no peer of its own
     * and the raw cycle is a peer's protocol (PhonePe DLM's on Aerospike).
     */
    default boolean freshKeysAgainstRaw() {
        return false;
    }

    /** One lock+unlock of the peer's protocol; only when {@link #peerCycleDescription()} is not null. */
    default void peerCycle(String key, String owner) throws Exception {
        throw new UnsupportedOperationException(name() + " replays no peer protocol");
    }

    /** Raw store operations for one key and owner, as {@link #acquireParts()} lists them. */
    @FunctionalInterface
    interface RawCycle {
        void run(String key, String owner) throws Exception;
    }

    /**
     * Raw cycles that add the parts of the store's acquire one at a time, each released as the store releases: the
     * first is the floor, the last has every part the store's acquire writes (figure 2c). Empty for a store whose
     * acquire is one operation.
     */
    default Map<String, RawCycle> acquireParts() {
        return Map.of();
    }

    /** Whether the store's server runs in the benchmark's own JVM (as the HBase mini cluster does). */
    default boolean serverRunsInThisJvm() {
        return false;
    }

    /** A raw scan of the store's live lock records, returning how many it read. */
    long rawScan() throws Exception;

    /** How many locks figure 7 lists on this store. */
    int listSize(Settings settings);
}
