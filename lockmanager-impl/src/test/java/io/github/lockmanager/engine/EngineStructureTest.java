package io.github.lockmanager.engine;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.spi.ToolProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's classes depend on each other in one direction only: the parts below the facade (renewal, watchdog,
 * delivery, releasing) never call back up. Read from the compiled classes with the JDK's jdeps.
 */
class EngineStructureTest {
    private static final String PACKAGE = LockEngine.class.getPackageName() + ".";

    @Test
    void noCycleBetweenEngineClasses() throws Exception {
        Map<String, Set<String>> uses = engineDependencies();
        assertThat(uses).as("engine classes found by jdeps").containsKeys("LockEngine", "LeaseKeeper", "Renewal");
        List<String> cycles = new ArrayList<>();
        for (String start : uses.keySet()) {
            if (reaches(uses, start, start, new HashSet<>())) {
                cycles.add(start);
            }
        }
        assertThat(cycles).as("engine classes on a dependency cycle (dependencies: %s)", uses).isEmpty();
    }

    @Test
    void backgroundWorkNeverReachesTheFacade() throws Exception {
        Map<String, Set<String>> uses = engineDependencies();
        for (String part : List.of("LeaseKeeper", "Renewal", "Watchdog", "Delivery", "Releaser", "Acquirer")) {
            assertThat(reaches(uses, part, "LockEngine", new HashSet<>())).as(part + " reaches LockEngine").isFalse();
        }
    }

    private static boolean reaches(Map<String, Set<String>> uses, String from, String target, Set<String> seen) {
        for (String next : uses.getOrDefault(from, Set.of())) {
            if (next.equals(target) || (seen.add(next) && reaches(uses, next, target, seen))) {
                return true;
            }
        }
        return false;
    }

    /** Class to the engine classes it uses, nested classes counted as their outer class. */
    private static Map<String, Set<String>> engineDependencies() throws Exception {
        Path classes = Path.of(LockEngine.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
        StringWriter out = new StringWriter();
        int exit = jdeps.run(new PrintWriter(out), new PrintWriter(out), "-verbose:class", "-filter:none",
                "-include", PACKAGE.replace(".", "\\.") + ".*", classes.toString());
        assertThat(exit).as("jdeps: %s", out).isZero();
        Map<String, Set<String>> uses = new HashMap<>();
        for (String line : out.toString().split("\\R")) {
            String[] parts = line.trim().split("\\s+");
            if (parts.length >= 3 && parts[1].equals("->") && parts[0].startsWith(PACKAGE) && parts[2].startsWith(PACKAGE)) {
                String from = simpleName(parts[0]);
                String to = simpleName(parts[2]);
                if (!from.equals(to)) {
                    uses.computeIfAbsent(from, k -> new TreeSet<>()).add(to);
                }
            }
        }
        return uses;
    }

    private static String simpleName(String className) {
        String name = className.substring(PACKAGE.length());
        int nested = name.indexOf('$');
        return nested < 0 ? name : name.substring(0, nested);
    }
}
