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
}
