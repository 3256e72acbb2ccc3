package io.github.lockmanager.it.vthreads;

import io.github.lockmanager.store.jdbc.DatabaseAccess;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * 200 virtual threads take locks on PostgreSQL through a pool, in a JVM of Java 21 or later (this build runs on
 * 17): the build's own JDK if it is new enough, else the newest under {@code /usr/lib/jvm} or named by
 * {@code -Dlockmanager.vthreads.java}. Skipped, saying so, when there is none.
 */
class VirtualThreadsTest {

    @ParameterizedTest
    @ValueSource(strings = {"hikari", "c3p0"})
    void twoHundredVirtualThreadsTakeLocksWithoutStallOrOverlap(String pool) throws Exception {
        Optional<Path> java = javaWithVirtualThreads();
        assumeTrue(java.isPresent(), "no JDK 21 or later found under /usr/lib/jvm; name one with "
                + "-Dlockmanager.vthreads.java=/path/to/bin/java");
        List<String> command = new ArrayList<>(List.of(java.get().toString(), "-Xmx256m",
                "-Dvt.pool=" + pool, "-Dvt.url=" + DatabaseAccess.postgresUrl(), "-Dvt.threads=200", "-Dvt.seconds=5",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-Dcom.mchange.v2.log.MLog=com.mchange.v2.log.FallbackMLog",
                "-Dcom.mchange.v2.log.FallbackMLog.DEFAULT_CUTOFF_LEVEL=WARNING",
                "-cp", System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                VirtualThreadNode.class.getName()));
        Path log = Files.createTempFile("vthreads-" + pool, ".log");
        Process node = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean ended = node.waitFor(3, TimeUnit.MINUTES);
        if (!ended) {
            node.destroyForcibly();
        }
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        String last = lines.isEmpty() ? "" : lines.get(lines.size() - 1);
        System.out.printf("%s with 200 virtual threads on %s: %s%n", pool, java.get(), last);
        assertThat(ended).as("the node ended; its output: %s", lines).isTrue();
        assertThat(last).as("the node's last line").startsWith("DONE ");
        String[] done = last.split(" ");
        long attempts = Long.parseLong(done[1]);
        long acquisitions = Long.parseLong(done[2]);
        int overlaps = Integer.parseInt(done[4]);
        int errors = Integer.parseInt(done[5]);
        assertThat(overlaps).as("two holders of one key at once").isZero();
        assertThat(acquisitions).as("locks taken in %d attempts", attempts).isPositive();
        // a call that waited out the pool is the load's doing (reported); any other failure is a defect
        assertThat(errors).as("failed calls other than pool timeouts; the node's output: %s", lines).isZero();
        assertThat(node.exitValue()).isZero();
        Files.deleteIfExists(log);
    }

    private static Optional<Path> javaWithVirtualThreads() throws IOException {
        String named = System.getProperty("lockmanager.vthreads.java");
        if (named != null) {
            return Optional.of(Path.of(named));
        }
        if (Runtime.version().feature() >= 21) {
            return Optional.of(Path.of(System.getProperty("java.home"), "bin", "java"));
        }
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return Optional.empty();
        }
        try (Stream<Path> homes = Files.list(jvms)) {
            return homes.filter(home -> Files.isExecutable(home.resolve("bin/java")) && feature(home) >= 21)
                    .max(Comparator.comparingInt(VirtualThreadsTest::feature)).map(home -> home.resolve("bin/java"));
        }
    }

    /** The feature version a JDK's {@code release} file names, or 0. */
    private static int feature(Path home) {
        try {
            for (String line : Files.readAllLines(home.resolve("release"))) {
                if (line.startsWith("JAVA_VERSION=")) {
                    String version = line.substring("JAVA_VERSION=".length()).replace("\"", "");
                    return Integer.parseInt(version.split("[.+-]")[0]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }
}
