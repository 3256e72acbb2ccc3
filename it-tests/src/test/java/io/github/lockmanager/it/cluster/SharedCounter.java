package io.github.lockmanager.it.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One monotonic sequence shared by every process on this machine: a number in a file, read and moved forward
 * under an exclusive file lock. Critical sections of all nodes are stamped with it, so their order can be
 * compared across processes without trusting any clock.
 */
final class SharedCounter implements AutoCloseable {
    private final FileChannel channel;

    SharedCounter(Path file) throws IOException {
        this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
    }

    /** The next number; the file lock also serializes the threads of this process. */
    synchronized long next() {
        try (FileLock ignored = channel.lock()) {
            ByteBuffer buffer = ByteBuffer.allocate(Long.BYTES);
            long current = channel.read(buffer, 0) == Long.BYTES ? buffer.flip().getLong() : 0;
            channel.write(ByteBuffer.allocate(Long.BYTES).putLong(0, current + 1), 0);
            return current + 1;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
