package io.github.lockmanager.store.support;

import io.github.lockmanager.LockMode;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockRequest;

/**
 * Whether a key's live holders admit one more, the rule of {@link io.github.lockmanager.spi.LockStore#acquire} for a
 * store that keeps a record per holder, written once for every store that decides in Java: no live holder's mode
 * {@linkplain LockMode#conflictsWith conflicts} with the request's; and for a {@link LockMode#PERMIT} request, every
 * live permit holder asked for the same number of permits, and fewer than that many hold the key. Feed it each live
 * holder but the requester's own record ({@link #blockedBy}), then ask {@link #full()}. Not thread-safe: one per
 * decision.
 */
public final class Admission {
    private final LockMode mode;
    private final int permits;
    private LockRecord permitHolder;
    private int permitHolders;

    private Admission(LockMode mode, int permits) {
        this.mode = mode;
        this.permits = permits;
    }

    /** A decision about {@code request}. */
    public static Admission of(LockRequest request) {
        return new Admission(request.mode(), request.permits());
    }

    /**
     * Counts a live holder of the key in; {@code true} if it alone keeps the request out: its mode conflicts, or it is
     * a permit holder that asked for another number than the request.
     */
    public boolean blockedBy(LockMode heldMode, int heldPermits) {
        if (heldMode.conflictsWith(mode)) {
            return true;
        }
        if (mode != LockMode.PERMIT) {
            return false;
        }
        if (heldPermits != permits) {
            return true;
        }
        permitHolders++;
        return false;
    }

    /** {@link #blockedBy(LockMode, int)} of {@code holder}; remembers it as the one to name if the key is full. */
    public boolean blockedBy(LockRecord holder) {
        if (blockedBy(holder.mode(), holder.permits())) {
            return true;
        }
        if (mode == LockMode.PERMIT && permitHolder == null) {
            permitHolder = holder;
        }
        return false;
    }

    /** After every live holder was counted in: whether the request's permits are all taken. */
    public boolean full() {
        return mode == LockMode.PERMIT && permitHolders >= permits;
    }

    /** A permit holder counted in by {@link #blockedBy(LockRecord)}, to name when {@link #full()}; or {@code null}. */
    public LockRecord permitHolder() {
        return permitHolder;
    }

    /** The mode of a text written by {@link LockMode#text}. */
    public static LockMode modeOf(String text) {
        int colon = text.indexOf(':');
        return LockMode.valueOf(colon < 0 ? text : text.substring(0, colon));
    }

    /** The permits of a text written by {@link LockMode#text}: 0 for a mode other than {@link LockMode#PERMIT}. */
    public static int permitsOf(String text) {
        int colon = text.indexOf(':');
        return colon < 0 ? 0 : Integer.parseInt(text, colon + 1, text.length(), 10);
    }
}
