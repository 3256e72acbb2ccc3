package io.github.lockmanager.it.cluster;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of a test's own, made by {@code initdb} in a temporary directory (trust, user {@code postgres},
 * a database {@code test}) and run by {@code pg_ctl} on a free loopback port: stopped in {@code immediate} mode, as
 * a crash would stop it (what was committed survives, by its write-ahead log), and started again on the same port.
 * The binaries are Debian's ({@code -Dpostgres.bin} names another directory); run by root, they run as the
 * {@code postgres} user, since PostgreSQL refuses to run as root.
 */
final class PostgresServerProcess implements AutoCloseable {
    final int port;
    private final Path bin;
    private final Path data;
    private final Path dir;
    private boolean running;

    PostgresServerProcess() throws IOException, InterruptedException {
        bin = binaries();
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        dir = Files.createTempDirectory("lockmanager-it-postgres");
        data = dir.resolve("data");
        if (isRoot()) {
            UserPrincipal postgres = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
            Files.setOwner(dir, postgres);
        }
        run(List.of(bin.resolve("initdb").toString(), "-D", data.toString(), "-A", "trust", "-U", "postgres"));
        start();
        run(List.of(bin.resolve("createdb").toString(), "-h", "127.0.0.1", "-p", Integer.toString(port), "-U",
                "postgres", "test"));
    }

    /** Whether the machine has PostgreSQL's server binaries. */
    static boolean available() {
        try {
            binaries();
            return true;
        } catch (IOException none) {
            return false;
        }
    }

    private static Path binaries() throws IOException {
        String named = System.getProperty("postgres.bin");
        if (named != null) {
            return Path.of(named);
        }
        Path debian = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(debian)) {
            try (Stream<Path> versions = Files.list(debian)) {
                Path found = versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("pg_ctl")))
                        .max(Path::compareTo).orElse(null);
                if (found != null) {
                    return found;
                }
            }
        }
        throw new IOException("no PostgreSQL server binaries (set -Dpostgres.bin)");
    }

    /** Starts the server (again) and returns once it accepts connections. */
    void start() throws IOException, InterruptedException {
        run(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l", dir.resolve("server.log").toString(),
                "-o", "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1", "-w", "start"));
        running = true;
    }

    /** Stops it at once, without a checkpoint, as a crash would: its clients' connections break. */
    void crash() throws IOException, InterruptedException {
        running = false;
        run(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "immediate", "-w", "stop"));
    }

    private void run(List<String> command) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>();
        if (isRoot()) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(command);
        Path log = dir.resolve("commands.log");
        Process process = new ProcessBuilder(full).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IOException(String.join(" ", command) + " failed; see " + log);
        }
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    @Override
    public void close() throws IOException, InterruptedException {
        if (running) {
            crash();
        }
    }
}
