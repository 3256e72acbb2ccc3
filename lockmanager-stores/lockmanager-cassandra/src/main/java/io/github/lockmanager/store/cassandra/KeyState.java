package io.github.lockmanager.store.cassandra;

import io.github.lockmanager.LockMode;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * What the store keeps of one key in its row's state cell: the key's fencing counter (the last token granted) and its
 * holders. Every change of a key is a compare-and-set of this cell as a whole, so one lightweight transaction decides
 * it whatever the mode, and a retried write that had applied finds its own holder there. Immutable.
 *
 * <p>Stored format (versioned; a release reads every format an earlier one wrote): a format byte ({@value #FORMAT}),
 * the counter (8 bytes), the number of holders (2 bytes), then per holder its owner token, mode code (1 byte), permits
 * (4 bytes), node, thread, lock time, expiry, token (8 bytes each) and flags (1 byte: bit 0 abort asked), strings in
 * modified UTF-8 with a 2-byte length.
 */
record KeyState(long counter, List<Holder> holders) {
    /** The format this release writes. */
    static final byte FORMAT = 1;
    private static final int ABORTED = 1;

    /** A key no one holds and whose counter has not started (its row is new, or its state cell expired). */
    static final KeyState EMPTY = new KeyState(0, List.of());

    KeyState {
        holders = List.copyOf(holders);
    }

    ByteBuffer encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(32 + holders.size() * 96);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            out.writeLong(counter);
            out.writeShort(holders.size());
            for (Holder h : holders) {
                out.writeUTF(h.owner());
                out.writeByte(h.mode().code());
                out.writeInt(h.permits());
                out.writeUTF(h.nodeId());
                out.writeUTF(h.threadName());
                out.writeLong(h.lockMillis());
                out.writeLong(h.expiresMillis());
                out.writeLong(h.token());
                out.writeByte(h.aborted() ? ABORTED : 0);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return ByteBuffer.wrap(bytes.toByteArray());
    }

    /**
     * The state a cell holds; {@link #EMPTY} for none.
     *
     * @throws Unreadable naming the format if the cell was written in one this release does not know (a later
     *                     release's), or saying it is damaged: the key is left as it is
     */
    static KeyState decode(ByteBuffer cell) {
        if (cell == null || !cell.hasRemaining()) {
            return EMPTY;
        }
        byte[] raw = new byte[cell.remaining()];
        cell.duplicate().get(raw);
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(raw))) {
            byte format = in.readByte();
            if (format != FORMAT) {
                throw new Unreadable("lock state of format " + format + " is not one this release reads"
                        + " (it reads format " + FORMAT + "): a later lockmanager-cassandra wrote it");
            }
            long counter = in.readLong();
            int count = in.readUnsignedShort();
            Holder[] holders = new Holder[count];
            for (int i = 0; i < count; i++) {
                String owner = in.readUTF();
                byte modeCode = in.readByte();
                LockMode mode;
                try {
                    mode = LockMode.ofCode(modeCode);
                } catch (IllegalArgumentException e) {
                    throw new Unreadable("lock state names lock mode " + modeCode + ", which format " + FORMAT
                            + " does not have: the cell is damaged", e);
                }
                int permits = in.readInt();
                String node = in.readUTF();
                String thread = in.readUTF();
                long lock = in.readLong();
                long expires = in.readLong();
                long token = in.readLong();
                boolean aborted = (in.readByte() & ABORTED) != 0;
                holders[i] = new Holder(owner, mode, permits, node, thread, lock, expires, token, aborted);
            }
            return new KeyState(counter, List.of(holders));
        } catch (IOException e) {
            throw new Unreadable("lock state cell of " + raw.length + " bytes is cut short or damaged", e);
        }
    }

    /** A state cell this release cannot read; the store reports it as {@code UNREADABLE_RECORD}, not retried. */
    static final class Unreadable extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        Unreadable(String message) {
            super(message);
        }

        Unreadable(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
