package io.github.lockmanager.engine;

import java.util.ArrayList;
import java.util.List;

/** The keys of a hierarchical lock path. */
final class LockPaths {
    private LockPaths() {
    }

    /**
     * The keys a hierarchical lock on {@code path} takes, top-down: each prefix of the path that ends before a
     * separator, then the path itself ({@code "a/b/c"}: {@code "a"}, {@code "a/b"}, {@code "a/b/c"}).
     *
     * @throws IllegalArgumentException if a segment is empty (the path starts or ends with the separator, or has
     *                                  two in a row); the path itself was validated as a key
     */
    static List<String> prefixes(String path, char separator) {
        List<String> prefixes = new ArrayList<>();
        int from = 0;
        while (true) {
            int end = path.indexOf(separator, from);
            int segmentEnd = end < 0 ? path.length() : end;
            if (segmentEnd == from) {
                throw new IllegalArgumentException("lock path '" + path + "' has an empty segment at index " + from
                        + " (separator '" + separator + "')");
            }
            prefixes.add(path.substring(0, segmentEnd));
            if (end < 0) {
                return prefixes;
            }
            from = end + 1;
        }
    }
}
