package io.github.lockmanager.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The commands clients send to the machine's Redis, as the server reports them to {@code MONITOR}: each command a
 * client sent, and apart from them those a script ran ({@code INFO commandstats} counts both alike). Counted while
 * one contender alone works, so that the server's count is that contender's.
 */
final class RedisMonitor implements AutoCloseable {
    private final Socket socket;
    private final AtomicLong sent = new AtomicLong();
    private final Map<String, Long> byCommand = new TreeMap<>();
    private final Thread reader;

    RedisMonitor() throws IOException, InterruptedException {
        URI uri = URI.create(Contenders.REDIS_URL);
        socket = new Socket(uri.getHost(), uri.getPort());
        OutputStream out = socket.getOutputStream();
        out.write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        if (!"+OK".equals(in.readLine())) {
            throw new IOException("Redis refused MONITOR");
        }
        reader = new Thread(() -> read(in), "bench-redis-monitor");
        reader.setDaemon(true);
        reader.start();
    }

    private void read(BufferedReader in) {
        try {
            for (String line; (line = in.readLine()) != null; ) {
                // +<time> [<db> <client address>|lua] "<command>" ...
                int close = line.indexOf(']');
                if (close < 0 || line.substring(0, close).endsWith(" lua")) {
                    continue;
                }
                int start = line.indexOf('"', close) + 1;
                String command = line.substring(start, line.indexOf('"', start)).toLowerCase();
                synchronized (byCommand) {
                    byCommand.merge(command, 1L, Long::sum);
                }
                sent.incrementAndGet();
            }
        } catch (IOException closed) {
            // the monitor was closed
        }
    }

    /**
     * The commands sent per cycle of {@code cycles} runs of {@code work}, and which: counted from the server's report,
     * once the last command of the work has been reported.
     */
    String perCycle(int cycles, Rounds.Cycle work) throws Exception {
        synchronized (byCommand) {
            byCommand.clear();
        }
        sent.set(0);
        for (int i = 0; i < cycles; i++) {
            work.run();
        }
        awaitReported();
        StringBuilder which = new StringBuilder();
        synchronized (byCommand) {
            byCommand.remove("echo");
            byCommand.forEach((command, count) -> which.append(which.length() == 0 ? "" : " + ").append(
                    String.format(java.util.Locale.ROOT, "%.2f %s", (double) count / cycles, command)));
        }
        return String.format(java.util.Locale.ROOT, "%.2f (%s)", (double) (sent.get() - 1) / cycles, which);
    }

    /**
     * The commands every client sent from {@code start} on for {@code window}, counted once the server has reported
     * the last of them.
     */
    long sentDuring(java.time.Duration window, Runnable start) throws Exception {
        synchronized (byCommand) {
            byCommand.clear();
        }
        sent.set(0);
        start.run();
        Thread.sleep(window.toMillis());
        awaitReported();
        return sent.get() - 1;
    }

    /** Returns once the server has reported every command sent before this call (an ECHO sent after them). */
    private void awaitReported() throws Exception {
        String marker = "bench-monitor-" + System.nanoTime();
        // the monitor's report of this marker comes after every command sent before it
        try (Socket ping = new Socket(socket.getInetAddress(), socket.getPort())) {
            ping.getOutputStream().write(("ECHO " + marker + "\r\n").getBytes(StandardCharsets.US_ASCII));
            ping.getInputStream().read(new byte[64]);
        }
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (byCommand(marker) == 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }

    private long byCommand(String marker) {
        synchronized (byCommand) {
            return byCommand.getOrDefault("echo", 0L);
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
