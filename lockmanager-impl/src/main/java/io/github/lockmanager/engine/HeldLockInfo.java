package io.github.lockmanager.engine;

import javax.management.ConstructorParameters;

/**
 * One lock a node's threads hold, as its {@link LockManagerMXBean} shows it: over JMX a row of open data (a
 * {@code CompositeData} with these properties), in code this object. Immutable.
 */
public final class HeldLockInfo {
    private final String level;
    private final String key;
    private final String holderThread;
    private final int holds;
    private final long heldForMillis;
    private final long fencingToken;
    private final String mode;
    private final boolean heldTooLong;

    @ConstructorParameters({"level", "key", "holderThread", "holds", "heldForMillis", "fencingToken", "mode",
            "heldTooLong"})
    public HeldLockInfo(String level, String key, String holderThread, int holds, long heldForMillis,
                        long fencingToken, String mode, boolean heldTooLong) {
        this.level = level;
        this.key = key;
        this.holderThread = holderThread;
        this.holds = holds;
        this.heldForMillis = heldForMillis;
        this.fencingToken = fencingToken;
        this.mode = mode;
        this.heldTooLong = heldTooLong;
    }

    /** {@code DC} or {@code XDC}. */
    public String getLevel() {
        return level;
    }

    /** The key as the caller named it. */
    public String getKey() {
        return key;
    }

    /** The name of the thread holding the lock. */
    public String getHolderThread() {
        return holderThread;
    }

    /** How many times the holder has taken the lock without unlocking it yet. */
    public int getHolds() {
        return holds;
    }

    /** How long the lock has been held, by the manager's time source. */
    public long getHeldForMillis() {
        return heldForMillis;
    }

    /** The fencing token of the acquisition. */
    public long getFencingToken() {
        return fencingToken;
    }

    /** How it is held: a {@link io.github.lockmanager.LockMode} name, {@code EXCLUSIVE} for {@code lock()}. */
    public String getMode() {
        return mode;
    }

    /** Whether it has been held longer than {@link LockManagerBuilder#heldTooLongThreshold}; {@code false} when none is set. */
    public boolean isHeldTooLong() {
        return heldTooLong;
    }

    @Override
    public String toString() {
        return level + " '" + key + "' held " + mode + " by thread '" + holderThread + "', " + holds + " hold(s), for "
                + heldForMillis + " ms" + (heldTooLong ? " (too long)" : "") + ", fencing token " + fencingToken;
    }
}
