package io.github.lockmanager.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback relay to a server's port that can stop passing what the server sends ({@link #dropAnswers}), discarding
 * it, while the other way still flows: a replica behind it then never receives the writes made meanwhile, however
 * long they sit in buffers. Its threads are daemons named {@code relay-*}, stopped by {@link #close()}.
 */
final class TcpRelay implements AutoCloseable {
    private final ServerSocket listening;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean dropping;

    TcpRelay(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        start("relay-accept-" + port(), this::accept);
    }

    int port() {
        return listening.getLocalPort();
    }

    /** From now on, bytes from the server are discarded instead of passed on. */
    void dropAnswers() {
        dropping = true;
    }

    private void accept() {
        try {
            while (true) {
                Socket client = listening.accept();
                Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(client);
                sockets.add(server);
                start("relay-up-" + port(), () -> pump(client, server, false));
                start("relay-down-" + port(), () -> pump(server, client, true));
            }
        } catch (IOException closed) {
            // the relay is closed
        }
    }

    private void pump(Socket from, Socket to, boolean fromServer) {
        byte[] buffer = new byte[16384];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (!(fromServer && dropping)) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            }
        } catch (IOException closed) {
            // either side went away
        }
    }

    private static void start(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void close() throws IOException {
        listening.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
