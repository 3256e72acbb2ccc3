package io.github.lockmanager.internal;

/**
 * The argument checks of lockmanager's builders, stores and value types, written once so that every bad argument
 * fails the same way: an {@link IllegalArgumentException} whose message names the argument (a {@code null} one
 * too, so that a caller catching bad input catches one type). Internal: see the package comment.
 */
public final class Require {
    private Require() {
    }

    /**
     * @return {@code value}
     * @throws IllegalArgumentException "{@code name} must not be null" if it is
     */
    public static <T> T notNull(T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        return value;
    }

    /**
     * @return {@code value}
     * @throws IllegalArgumentException "{@code name} must not be null or empty" if it is
     */
    public static String notEmpty(String value, String name) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(name + " must not be null or empty");
        }
        return value;
    }

    /**
     * @throws IllegalArgumentException with the message {@code String.format(template, args)} unless {@code valid}
     */
    public static void argument(boolean valid, String template, Object... args) {
        if (!valid) {
            throw new IllegalArgumentException(String.format(template, args));
        }
    }

    /**
     * Checks the permits that go with {@code mode}: 1 to {@link io.github.lockmanager.LockManager#MAX_PERMITS} for
     * {@link io.github.lockmanager.LockMode#PERMIT}, 0 for every other mode.
     *
     * @return {@code permits}
     * @throws IllegalArgumentException naming {@code what} if they do not go together
     */
    public static int permits(io.github.lockmanager.LockMode mode, int permits, String what) {
        if (mode == io.github.lockmanager.LockMode.PERMIT) {
            argument(permits >= 1 && permits <= io.github.lockmanager.LockManager.MAX_PERMITS,
                    "permits of %s must be from 1 to %d, was %d", what, io.github.lockmanager.LockManager.MAX_PERMITS,
                    permits);
        } else {
            argument(permits == 0, "permits of %s go with mode PERMIT only, not %s (was %d)", what, mode, permits);
        }
        return permits;
    }
}
