package io.github.lockmanager.testing;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shape of a store's package, for a structure test of its own: which of its classes use which (read from the
 * compiled classes with the JDK's {@code jdeps}, nested classes counted as their outer class) and how long its
 * sources are. A store written on the kit is one-way: no cycle between its classes, and no helper refers back to
 * the store class, which alone puts them together.
 */
public final class PackageStructure {
    private final Class<?> store;
    private final String prefix;
    private final Map<String, Set<String>> uses;

    private PackageStructure(Class<?> store, Map<String, Set<String>> uses) {
        this.store = store;
        this.prefix = store.getPackageName() + ".";
        this.uses = uses;
    }

    /** The package of {@code store}, the class that implements {@code LockStore}. */
    public static PackageStructure of(Class<?> store) {
        return new PackageStructure(store, dependencies(store));
    }

    /** Class to the classes of the package it uses. */
    public Map<String, Set<String>> uses() {
        return uses;
    }

    /** No class of the package reaches itself through the others. */
    public PackageStructure assertNoCycles() {
        List<String> cycles = new ArrayList<>();
        for (String start : uses.keySet()) {
            if (reaches(start, start, new HashSet<>())) {
                cycles.add(start);
            }
        }
        assertThat(cycles).as("classes of %s on a dependency cycle (dependencies: %s)", prefix, uses).isEmpty();
        return this;
    }

    /** No class of the package but those named refers to the store class. */
    public PackageStructure assertOnlyTheseUseTheStore(String... allowed) {
        String name = store.getSimpleName();
        Set<String> users = new TreeSet<>();
        uses.forEach((from, to) -> {
            if (to.contains(name)) {
                users.add(from);
            }
        });
        users.removeAll(Set.of(allowed));
        assertThat(users).as("helpers of %s that refer to it", name).isEmpty();
        return this;
    }

    /**
     * No main source file of the package is longer than {@code maxLines}, read from {@code src/main/java} under the
     * working directory (the module's, as Maven runs tests).
     */
    public PackageStructure assertNoSourceLongerThan(int maxLines) {
        return assertNoSourceLongerThan(maxLines, Path.of("src", "main", "java"));
    }

    /** {@link #assertNoSourceLongerThan(int)} with the sources under {@code sourceRoot} (another module's). */
    public PackageStructure assertNoSourceLongerThan(int maxLines, Path sourceRoot) {
        Path dir = sourceRoot.resolve(store.getPackageName().replace('.', '/'));
        Map<String, Long> tooLong = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                long lines;
                try (Stream<String> all = Files.lines(file)) {
                    lines = all.count();
                }
                if (lines > maxLines) {
                    tooLong.put(file.getFileName().toString(), lines);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the sources in " + dir.toAbsolutePath(), e);
        }
        assertThat(tooLong).as("sources of %s longer than %d lines", prefix, maxLines).isEmpty();
        return this;
    }

    private boolean reaches(String from, String target, Set<String> seen) {
        for (String next : uses.getOrDefault(from, Set.of())) {
            if (next.equals(target) || (seen.add(next) && reaches(next, target, seen))) {
                return true;
            }
        }
        return false;
    }

    private static Map<String, Set<String>> dependencies(Class<?> store) {
        String prefix = store.getPackageName() + ".";
        Path classes;
        try {
            classes = Path.of(store.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate the classes of " + store, e);
        }
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
        StringWriter out = new StringWriter();
        int exit = jdeps.run(new PrintWriter(out), new PrintWriter(out), "-verbose:class", "-filter:none",
                "-include", prefix.replace(".", "\\.") + ".*", classes.toString());
        assertThat(exit).as("jdeps: %s", out).isZero();
        Map<String, Set<String>> uses = new HashMap<>();
        for (String line : out.toString().split("\\R")) {
            String[] parts = line.trim().split("\\s+");
            if (parts.length >= 3 && parts[1].equals("->") && parts[0].startsWith(prefix)
                    && parts[2].startsWith(prefix)) {
                String from = simpleName(parts[0], prefix);
                String to = simpleName(parts[2], prefix);
                if (!from.equals(to)) {
                    uses.computeIfAbsent(from, k -> new TreeSet<>()).add(to);
                }
            }
        }
        assertThat(uses).as("classes of %s found by jdeps", prefix).isNotEmpty();
        return uses;
    }

    private static String simpleName(String className, String prefix) {
        String name = className.substring(prefix.length());
        int nested = name.indexOf('$');
        return nested < 0 ? name : name.substring(0, nested);
    }
}
