package io.github.lockmanager.store.hbase;

import io.github.lockmanager.LockMode;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A holder slot's value: the mode (one byte, first, so that a filter can tell conflicting holders by a prefix), for a
 * permit holder its number of permits (two bytes, so that a filter can tell a permit holder of another number), the
 * owner token (its UTF-8 length in two bytes, then the bytes), the fencing token (8 bytes; 0 until the holder's
 * first renewal, since the acquisition's own write cannot know the counter it moves) and the {@link LockMeta}. Mode
 * and owner token come first so that the condition "this slot is still mine" compares a prefix no renewal changes.
 */
record HolderCell(LockMode mode, int permits, String ownerToken, long fencingToken, LockMeta meta) {

    byte[] encode() {
        byte[] prefix = prefix(mode, permits, ownerToken);
        byte[] info = LockMeta.encode(meta.nodeId(), meta.threadName(), meta.lockTime(), meta.leaseMillis());
        return ByteBuffer.allocate(prefix.length + 8 + info.length).put(prefix).putLong(fencingToken).put(info).array();
    }

    HolderCell withFencingToken(long token) {
        return new HolderCell(mode, permits, ownerToken, token, meta);
    }

    /** The first bytes of every value the holder {@code ownerToken} in {@code mode} writes. */
    static byte[] prefix(LockMode mode, int permits, String ownerToken) {
        byte[] token = ownerToken.getBytes(StandardCharsets.UTF_8);
        byte[] head = modePrefix(mode, permits);
        return ByteBuffer.allocate(head.length + 2 + token.length).put(head).putShort((short) token.length).put(token)
                .array();
    }

    /** The first bytes of every value of a holder in {@code mode}: the mode, and a permit holder's number. */
    static byte[] modePrefix(LockMode mode, int permits) {
        return mode == LockMode.PERMIT ? ByteBuffer.allocate(3).put(modeByte(mode)).putShort((short) permits).array()
                : new byte[] {modeByte(mode)};
    }

    static byte modeByte(LockMode mode) {
        return (byte) mode.code();
    }

    static HolderCell decode(byte[] value) {
        ByteBuffer buffer = ByteBuffer.wrap(value);
        LockMode mode = LockMode.ofCode(buffer.get());
        int permits = mode == LockMode.PERMIT ? buffer.getShort() : 0;
        int tokenLength = buffer.getShort() & 0xffff;
        String owner = new String(value, buffer.position(), tokenLength, StandardCharsets.UTF_8);
        buffer.position(buffer.position() + tokenLength);
        long fencing = buffer.getLong();
        return new HolderCell(mode, permits, owner, fencing,
                LockMeta.decode(Arrays.copyOfRange(value, buffer.position(), value.length)));
    }
}
