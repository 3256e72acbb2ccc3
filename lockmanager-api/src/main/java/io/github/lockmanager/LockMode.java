package io.github.lockmanager;

/**
 * How a holder holds a key. {@link #SHARED} and {@link #EXCLUSIVE} are asked for by callers; the two intention
 * modes are taken by the manager on the ancestors of a hierarchical lock ({@link LockSpec#path}), the
 * standard multiple-granularity scheme: a holder below an ancestor announces there what it holds below, so that a
 * lock on the ancestor itself sees it. Two holders of one key may hold it at once exactly when neither mode
 * {@linkplain #conflictsWith conflicts} with the other:
 *
 * <pre>
 *                    INTENT_SHARED  INTENT_EXCLUSIVE  SHARED  EXCLUSIVE  PERMIT
 * INTENT_SHARED           ok              ok            ok       -         -
 * INTENT_EXCLUSIVE        ok              ok            -        -         -
 * SHARED                  ok              -             ok       -         -
 * EXCLUSIVE               -               -             -        -         -
 * PERMIT                  -               -             -        -       count
 * </pre>
 *
 * <p>{@link #PERMIT} holders share a key with each other only, and only up to the number of permits they all ask
 * for ({@link LockSpec#permits}): "count" above means a permit is granted while fewer than that many hold the
 * key and every holder asked for the same number.
 */
public enum LockMode {
    /** On an ancestor: something below it is held {@link #SHARED}. */
    INTENT_SHARED(0),
    /** On an ancestor: something below it is held {@link #EXCLUSIVE}. */
    INTENT_EXCLUSIVE(1),
    /** Any number of holders at once, on any nodes; no exclusive holder. */
    SHARED(2),
    /** One holder and nobody else. What {@link LockManager#lock(String)} takes. */
    EXCLUSIVE(3),
    /**
     * One of at most n holders of the key, all asking for the same n ({@link LockSpec#permits}); no holder in
     * any other mode. Each has its own record, lease and fencing token, as an exclusive holder.
     */
    PERMIT(4);

    /** The modes by {@link #code()}: the codes run from 0 with no gap. */
    private static final LockMode[] BY_CODE = new LockMode[values().length];

    static {
        for (LockMode mode : values()) {
            BY_CODE[mode.code] = mode;
        }
    }

    private final int code;

    LockMode(int code) {
        this.code = code;
    }

    /**
     * The number stores keep for this mode in their records: fixed for good, whatever the order of the constants, so
     * that what one release writes the next reads. A new mode takes the next unused number.
     */
    public int code() {
        return code;
    }

    /**
     * The mode whose {@link #code()} is {@code code}.
     *
     * @throws IllegalArgumentException if no mode has it: a record written by a newer release, or not by a store
     */
    public static LockMode ofCode(int code) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new IllegalArgumentException("no lock mode has code " + code + " (codes 0 to " + (BY_CODE.length - 1)
                    + "): the record was written by a newer release of lockmanager, or not by a lock store");
        }
        return BY_CODE[code];
    }

    /** Whether a holder in this mode keeps a holder in {@code other} out of the same key. */
    public boolean conflictsWith(LockMode other) {
        return switch (this) {
            case INTENT_SHARED -> other == EXCLUSIVE || other == PERMIT;
            case INTENT_EXCLUSIVE -> other == SHARED || other == EXCLUSIVE || other == PERMIT;
            case SHARED -> other == INTENT_EXCLUSIVE || other == EXCLUSIVE || other == PERMIT;
            case EXCLUSIVE -> true;
            // two permit holders are kept apart by their number, which the mode alone does not know
            case PERMIT -> other != PERMIT;
        };
    }

    /**
     * Whether a hold in this mode already gives everything a hold in {@code other} would: {@link #EXCLUSIVE} covers
     * every mode, {@link #SHARED} and {@link #INTENT_EXCLUSIVE} cover {@link #INTENT_SHARED}, each mode itself.
     */
    public boolean covers(LockMode other) {
        return this == other || this == EXCLUSIVE
                || (other == INTENT_SHARED && (this == SHARED || this == INTENT_EXCLUSIVE));
    }

    /**
     * The mode the manager takes on each ancestor of a hierarchical lock taken in this mode; permits are not taken on
     * paths, and answer {@link #INTENT_EXCLUSIVE}, the stricter intention.
     */
    public LockMode intention() {
        return this == SHARED || this == INTENT_SHARED ? INTENT_SHARED : INTENT_EXCLUSIVE;
    }

    /** Whether callers may ask for it: the intention modes are the manager's. */
    public boolean isIntention() {
        return this == INTENT_SHARED || this == INTENT_EXCLUSIVE;
    }

    /**
     * This mode as admin views show it and stores that keep a mode as text write it: its name, and for
     * {@link #PERMIT} a colon and the number of permits ({@code PERMIT:3}); at most 11 characters.
     *
     * @param permits the holder's number of permits; ignored but for {@link #PERMIT}
     */
    public String text(int permits) {
        return this == PERMIT ? name() + ':' + permits : name();
    }
}
