package io.github.lockmanager.store.hbase;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * What a lock row shows of its acquisition, in one cell: lock time and lease (ms, 8 bytes each), the node id's
 * length in bytes (4), the node id and the thread name in UTF-8.
 */
record LockMeta(String nodeId, String threadName, long lockTime, long leaseMillis) {

    static byte[] encode(String nodeId, String threadName, long lockTime, long leaseMillis) {
        byte[] node = nodeId.getBytes(StandardCharsets.UTF_8);
        byte[] thread = threadName.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(20 + node.length + thread.length).putLong(lockTime).putLong(leaseMillis)
                .putInt(node.length).put(node).put(thread).array();
    }

    static LockMeta decode(byte[] cell) {
        ByteBuffer buffer = ByteBuffer.wrap(cell);
        long lockTime = buffer.getLong();
        long lease = buffer.getLong();
        int nodeLength = buffer.getInt();
        String node = new String(cell, 20, nodeLength, StandardCharsets.UTF_8);
        String thread = new String(cell, 20 + nodeLength, cell.length - 20 - nodeLength, StandardCharsets.UTF_8);
        return new LockMeta(node, thread, lockTime, lease);
    }
}
