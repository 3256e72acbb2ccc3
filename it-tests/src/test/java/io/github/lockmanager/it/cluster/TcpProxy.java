package io.github.lockmanager.it.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP proxy in front of a store, under the test's control: it can cut every connection and refuse
 * new ones (the store unreachable), drop every byte without closing anything (a network partition), and let a
 * request through and swallow its answer (an ambiguous write). Only ever listens on and connects to 127.0.0.1.
 */
final class TcpProxy implements AutoCloseable {
    private final ServerSocket server;
    private final int upstreamPort;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final AtomicInteger swallowed = new AtomicInteger();
    private volatile boolean cut;
    private volatile boolean partitioned;
    private volatile byte[] swallowAnswerTo;

    TcpProxy(int upstreamPort) throws IOException {
        this.upstreamPort = upstreamPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "proxy-accept-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** Closes every open connection and refuses new ones until {@link #restore()}. */
    void cut() {
        cut = true;
        open.forEach(TcpProxy::closeQuietly);
        open.clear();
    }

    /**
     * Drops every byte in both directions and leaves connections open, new ones included, as a partition that
     * loses packets without a reset does, until {@link #restore()}.
     */
    void partition() {
        partitioned = true;
    }

    void restore() {
        cut = false;
        partitioned = false;
    }

    /** The next request containing {@code marker} reaches the store; its answer is dropped and its connection closed. */
    void swallowAnswerTo(String marker) {
        swallowAnswerTo = marker.getBytes(StandardCharsets.UTF_8);
    }

    int swallowedAnswers() {
        return swallowed.get();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                if (cut) {
                    closeQuietly(client);
                    continue;
                }
                if (partitioned) {
                    // accepted, never answered: the client waits for a server that does not reply
                    open.add(client);
                    continue;
                }
                Socket upstream = new Socket();
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), upstreamPort), 2_000);
                open.add(client);
                open.add(upstream);
                boolean[] armed = {false};
                pump(client, upstream, armed, true);
                pump(upstream, client, armed, false);
            } catch (IOException e) {
                // closed, or the store refused: the client sees its connection fail
            }
        }
    }

    private void pump(Socket from, Socket to, boolean[] armed, boolean request) {
        Thread pump = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    byte[] marker = swallowAnswerTo;
                    if (request && marker != null && contains(buffer, n, marker)) {
                        swallowAnswerTo = null;
                        armed[0] = true;
                    } else if (!request && armed[0]) {
                        swallowed.incrementAndGet();
                        break;
                    }
                    if (partitioned) {
                        continue;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // the other side went away
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "proxy-pump");
        pump.setDaemon(true);
        pump.start();
    }

    private static boolean contains(byte[] data, int length, byte[] marker) {
        outer:
        for (int i = 0; i + marker.length <= length; i++) {
            for (int j = 0; j < marker.length; j++) {
                if (data[i + j] != marker[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        cut();
    }
}
