package io.github.lockmanager.it.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Starts {@link ClusterNode} JVMs and reads what they report; kills whatever is left on {@link #close()}. */
final class Children implements AutoCloseable {
    private final List<Child> children = new CopyOnWriteArrayList<>();
    private final Path logDir;

    Children(Path logDir) {
        this.logDir = logDir;
    }

    /** A node process started with these {@code node.*} settings. */
    Child start(Map<String, String> settings) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("--add-opens") || arg.startsWith("--add-exports") || arg.startsWith("-Dio.netty")) {
                command.add(arg);
            }
        }
        settings.forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        command.add("-cp");
        command.add(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
        command.add(ClusterNode.class.getName());
        Path stderr = logDir.resolve(settings.get("node.id") + ".stderr.log");
        Process process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
        Child child = new Child(settings.get("node.id"), process, stderr);
        children.add(child);
        return child;
    }

    @Override
    public void close() {
        children.forEach(c -> c.process.destroyForcibly());
    }

    static final class Child {
        final String id;
        final Process process;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final PrintWriter in;

        private final Path stderr;

        /** Put after the last line a node wrote, so that a wait for more fails at once rather than at its timeout. */
        private static final String ENDED = new String("(standard output ended)");

        private Child(String id, Process process, Path stderr) {
            this.id = id;
            this.process = process;
            this.stderr = stderr;
            this.in = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
            Thread reader = new Thread(() -> {
                try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line; (line = out.readLine()) != null; ) {
                        lines.add(line);
                    }
                    lines.add(ENDED);
                } catch (IOException e) {
                    lines.add(ENDED);
                }
            }, "reader-" + id);
            reader.setDaemon(true);
            reader.start();
        }

        /** The last lines the node wrote to standard error, which the temporary directory loses after the test. */
        private String stderrTail() {
            try {
                List<String> lines = Files.readAllLines(stderr, StandardCharsets.UTF_8);
                return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
            } catch (IOException e) {
                return "(unreadable: " + e + ")";
            }
        }

        /**
         * The next reported line that starts with {@code prefix}, or {@code null} if none came within {@code timeout}
         * or the node's output ended; earlier other lines are skipped.
         */
        String poll(String prefix, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == ENDED) {
                    lines.add(ENDED);
                    return null;
                }
                if (line == null || line.startsWith(prefix)) {
                    return line;
                }
            }
        }

        /** The next reported line that starts with {@code prefix}; earlier other lines are skipped. */
        String await(String prefix, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == ENDED) {
                    lines.add(ENDED); // for the next wait
                }
                if (line == null || line == ENDED) {
                    throw new AssertionError("node " + id + " did not report '" + prefix + "' "
                            + (line == null ? "within " + timeout : "before its output ended") + " (alive: "
                            + process.isAlive() + "); the end of its standard error:\n" + stderrTail());
                }
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
        }

        /**
         * The next reported lines that start with each of {@code prefixes}, in any order, one each, by prefix; other
         * lines are skipped.
         */
        Map<String, String> awaitAll(Duration timeout, String... prefixes) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            Map<String, String> found = new LinkedHashMap<>();
            while (found.size() < prefixes.length) {
                String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == ENDED) {
                    lines.add(ENDED); // for the next wait
                }
                if (line == null || line == ENDED) {
                    throw new AssertionError("node " + id + " did not report all of " + List.of(prefixes) + " "
                            + (line == null ? "within " + timeout : "before its output ended") + " (found " + found
                            + ", alive: " + process.isAlive() + "); the end of its standard error:\n" + stderrTail());
                }
                for (String prefix : prefixes) {
                    if (line.startsWith(prefix) && !found.containsKey(prefix)) {
                        found.put(prefix, line);
                        break;
                    }
                }
            }
            return found;
        }

        void send(String command) {
            in.println(command);
        }

        /** Sends a POSIX signal (STOP, CONT, TERM) to the process. */
        void signal(String signal) throws IOException, InterruptedException {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
            if (kill.waitFor() != 0) {
                throw new IOException("kill -" + signal + " " + process.pid() + " failed");
            }
        }
    }
}
