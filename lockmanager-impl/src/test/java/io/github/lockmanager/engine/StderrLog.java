package io.github.lockmanager.engine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What the tests' slf4j-simple writes to standard error while this is open (it looks {@code System.err} up at each
 * line); the lines still reach the real standard error, so the build's output stays whole.
 */
final class StderrLog implements AutoCloseable {
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private final PrintStream stderr = System.err;

    StderrLog() {
        System.setErr(new PrintStream(new Tee(captured, stderr), true, StandardCharsets.UTF_8));
    }

    String text() {
        synchronized (captured) {
            return captured.toString(StandardCharsets.UTF_8);
        }
    }

    @Override
    public void close() {
        System.setErr(stderr);
    }

    private static final class Tee extends OutputStream {
        private final ByteArrayOutputStream first;
        private final OutputStream second;

        Tee(ByteArrayOutputStream first, OutputStream second) {
            this.first = first;
            this.second = second;
        }

        @Override
        public void write(int b) throws IOException {
            synchronized (first) {
                first.write(b);
            }
            second.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            synchronized (first) {
                first.write(b, off, len);
            }
            second.write(b, off, len);
        }
    }
}
