package io.github.lockmanager.it.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A resource shared by the node processes that admits a write only with a term at least the highest it admitted (a
 * fencing check, as a database's {@code WHERE term <= ?} would), under a file lock: what a leader writes to, so that
 * a former leader's late write is counted and refused.
 */
final class FencedFile implements AutoCloseable {
    private final FileChannel channel;

    FencedFile(Path file) throws IOException {
        this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
    }

    /** Writes with {@code term}: {@code 0} if admitted, else the higher term that refused it. */
    synchronized long write(long term) {
        try (FileLock ignored = channel.lock()) {
            ByteBuffer buffer = ByteBuffer.allocate(Long.BYTES);
            long highest = channel.read(buffer, 0) == Long.BYTES ? buffer.flip().getLong() : 0;
            if (term < highest) {
                return highest;
            }
            channel.write(ByteBuffer.allocate(Long.BYTES).putLong(0, term), 0);
            return 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
