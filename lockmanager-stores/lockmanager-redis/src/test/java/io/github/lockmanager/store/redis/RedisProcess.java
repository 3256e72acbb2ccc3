package io.github.lockmanager.store.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * A {@code redis-server} (Debian's, or the one {@code -Dredis.server} names) this test starts on a free loopback port, with no persistence, in a directory of
 * its own: a server, or a Sentinel (the same binary with {@code --sentinel}, which is what Debian's
 * {@code redis-sentinel} runs). Killed and started again on the same port by the tests of failures.
 */
final class RedisProcess implements AutoCloseable {
    private final int port;
    private final Path dir;
    private final List<String> command;
    private Process process;

    private RedisProcess(int port, Path dir, List<String> command) {
        this.port = port;
        this.dir = dir;
        this.command = command;
    }

    /** Starts a server with {@code settings} ({@code "--maxmemory", "1mb"}, ...) added to its command line. */
    static RedisProcess launch(String... settings) throws IOException {
        int port = freePort();
        Path dir = Files.createTempDirectory("lockmanager-redis");
        List<String> command = new ArrayList<>(List.of(binary(), "--bind", "127.0.0.1", "--port",
                Integer.toString(port), "--save", "", "--appendonly", "no", "--dir", dir.toString()));
        command.addAll(List.of(settings));
        RedisProcess redis = new RedisProcess(port, dir, command);
        redis.start();
        return redis;
    }

    /** Starts a Sentinel watching the master {@code name} on {@code masterPort}, deciding alone (quorum 1). */
    static RedisProcess sentinel(String name, int masterPort, Duration downAfter) throws IOException {
        int port = freePort();
        Path dir = Files.createTempDirectory("lockmanager-sentinel");
        Path conf = dir.resolve("sentinel.conf");
        Files.writeString(conf, String.join("\n", "bind 127.0.0.1", "port " + port, "dir " + dir,
                "sentinel monitor " + name + " 127.0.0.1 " + masterPort + " 1",
                "sentinel down-after-milliseconds " + name + " " + downAfter.toMillis(),
                "sentinel failover-timeout " + name + " 10000", ""));
        RedisProcess sentinel = new RedisProcess(port, dir, List.of(binary(), conf.toString(), "--sentinel"));
        sentinel.start();
        return sentinel;
    }

    /** The server binary: {@code -Dredis.server} (a Valkey build's {@code valkey-server}, say), else Debian's. */
    static String binary() {
        return System.getProperty("redis.server", "redis-server");
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    int port() {
        return port;
    }

    String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** Starts it again, on the same port, and waits until it answers. */
    void start() throws IOException {
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile()).start();
        RedisClient probe = RedisClient.create(uri());
        try {
            await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
                try (StatefulRedisConnection<String, String> c = probe.connect()) {
                    return "PONG".equals(c.sync().ping());
                }
            });
        } finally {
            probe.shutdown();
        }
    }

    /** Kills it at once: what it held in memory is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
