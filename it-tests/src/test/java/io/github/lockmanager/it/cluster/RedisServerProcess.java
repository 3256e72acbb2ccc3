package io.github.lockmanager.it.cluster;

import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code redis-server} of a test's own ({@code -Dredis.server}, else Debian's) on a free loopback port, without
 * persistence: killed with SIGKILL and started again on the same port, it has lost every key, as a store restart that
 * loses data does.
 */
final class RedisServerProcess implements AutoCloseable {
    final int port;
    private final List<String> command;
    private final Path log;
    private Process process;

    RedisServerProcess() throws IOException, InterruptedException {
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Path dir = Files.createTempDirectory("lockmanager-it-redis");
        log = dir.resolve("redis.log");
        command = List.of(System.getProperty("redis.server", "redis-server"), "--bind", "127.0.0.1", "--port",
                Integer.toString(port), "--save", "", "--appendonly", "no", "--dir", dir.toString());
        start();
    }

    /** Starts it (again), on the same port, and returns once it answers. */
    void start() throws IOException, InterruptedException {
        process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!answers()) {
            if (System.nanoTime() > deadline) {
                throw new IOException("redis-server on port " + port + " did not answer within 20 s; see " + log);
            }
            Thread.sleep(50);
        }
    }

    private boolean answers() {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] answer = new byte[7];
            int read = socket.getInputStream().read(answer);
            return read > 0 && new String(answer, 0, read, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException notYet) {
            return false;
        }
    }

    /** Kills it with SIGKILL: what it held is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null) {
            kill();
        }
    }
}
