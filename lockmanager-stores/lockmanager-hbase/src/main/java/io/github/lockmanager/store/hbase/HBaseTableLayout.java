package io.github.lockmanager.store.hbase;

import io.github.lockmanager.store.support.HolderMarks;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.util.Bytes;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32;

/**
 * The lock table: one column family {@code D} (and any that {@link HBaseRowData} adds for the callers' data), GZ
 * compressed, one version, pre-split into 256 regions by a
 * one-byte hash prefix of the row key. The store writes no delete marker that could hide a later put (release
 * writes an empty owner; a purge's marker carries the timestamp of the newest cell it saw), so the family keeps
 * HBase's classic version behaviour: {@code NEW_VERSION_BEHAVIOR} would make every conditional write read
 * through the markers and versions a busy row piles up, measured at 1.4 to 2 times the cost per lock+unlock.
 *
 * <p>Cells of a lock row:
 * <ul>
 *   <li>{@code o}: the owner token of the acquisition, with a cell TTL of the lease: the lock exists while it
 *       holds a token. Every conditional write compares it. Release writes it empty, without a TTL; HBase
 *       treats an expected empty value as "absent or empty", which is how an acquisition asks for a free
 *       lock.</li>
 *   <li>{@code m}: node, thread, lock time (ms) and lease (ms) of the acquisition in one cell
 *       ({@link LockMeta}); no TTL, meaningful only while {@code o} lives. One cell rather than four: every cell
 *       written is work for the region server, and a row taken again and again piles up versions until a
 *       flush.</li>
 *   <li>{@code c}: the fencing counter, incremented atomically with each acquisition; no TTL, so tokens keep
 *       increasing across release and expiry. A row idle for the store's retention is deleted, and the
 *       counter of its next life starts above it (see {@link HBaseLockStore}).</li>
 *   <li>{@code a}: the owner token an abort was asked for; no TTL, it only counts while it equals {@code o}, so a
 *       release leaves it be.</li>
 *   <li>{@code h} and a two-byte slot number: a holder in a mode other than exclusive ({@link HolderCell}), with a
 *       cell TTL of its lease; written empty, without a TTL, when released. A holder takes the lowest free slot it
 *       finds, so a row keeps about as many slots as it ever had holders at once, however often it is taken.
 *       While a slot may hold someone, {@code o} holds {@link #SHARED_OWNER} without a TTL.</li>
 *   <li>{@code x} and a slot number: the owner token of the holder in that slot an abort was asked for.</li>
 *   <li>{@code r}: the owner token of the last acquisition that released the lock together with changes to data in
 *       the row ({@link HBaseRowData}), so that such a write whose answer was lost can tell it applied.</li>
 * </ul>
 */
final class HBaseTableLayout {
    static final byte[] FAMILY = Bytes.toBytes("D");
    static final byte[] OWNER = Bytes.toBytes("o");
    static final byte[] META = Bytes.toBytes("m");
    static final byte[] COUNTER = Bytes.toBytes("c");
    static final byte[] ABORT = Bytes.toBytes("a");
    static final byte[] RELEASED_BY = Bytes.toBytes("r");
    /** The owner cell's value of a released lock. */
    static final byte[] FREE = new byte[0];

    /** The owner cell's value while holder slots may be taken ({@link HolderMarks#SHARED}). */
    static final byte[] SHARED_OWNER = Bytes.toBytes(HolderMarks.SHARED);
    static final byte[] HOLDER_PREFIX = Bytes.toBytes("h");
    static final byte[] SLOT_ABORT_PREFIX = Bytes.toBytes("x");
    /** Slot numbers are two bytes. */
    static final int SLOTS = 1 << 16;
    static final int REGIONS = 256;
    static final Compression.Algorithm COMPRESSION = Compression.Algorithm.GZ;
    /**
     * The table attribute that names the format of its rows ({@link #FORMAT}). A table without it was made before the
     * attribute existed, in format 1.
     */
    static final String FORMAT_ATTRIBUTE = "lockmanager.format";
    /**
     * The format of the rows this store writes and reads: the cells above, the {@link HolderCell} and {@link LockMeta}
     * encodings, and the mode codes of {@link io.github.lockmanager.LockMode#code()}. A release that changes any of
     * them moves this number, reads the rows of every earlier format and refuses a table of a later one.
     */
    static final int FORMAT = 1;

    private HBaseTableLayout() {
    }

    static TableDescriptor descriptor(TableName name) {
        ColumnFamilyDescriptor family = ColumnFamilyDescriptorBuilder.newBuilder(FAMILY)
                .setMaxVersions(1)
                .setCompressionType(COMPRESSION)
                .build();
        return TableDescriptorBuilder.newBuilder(name).setColumnFamily(family)
                .setValue(FORMAT_ATTRIBUTE, Integer.toString(FORMAT)).build();
    }

    /** The 255 split points that make 256 regions, one per value of the prefix byte. */
    static byte[][] splitKeys() {
        byte[][] splits = new byte[REGIONS - 1][];
        for (int i = 1; i < REGIONS; i++) {
            splits[i - 1] = new byte[]{(byte) i};
        }
        return splits;
    }

    /** The one-byte bucket of a storage key, then the key in UTF-8. */
    static byte[] rowKey(String storageKey) {
        byte[] key = storageKey.getBytes(StandardCharsets.UTF_8);
        CRC32 crc = new CRC32();
        crc.update(key);
        byte[] row = new byte[key.length + 1];
        row[0] = (byte) crc.getValue();
        System.arraycopy(key, 0, row, 1, key.length);
        return row;
    }

    static byte[] holder(int slot) {
        return slotColumn(HOLDER_PREFIX, slot);
    }

    static byte[] slotAbort(int slot) {
        return slotColumn(SLOT_ABORT_PREFIX, slot);
    }

    private static byte[] slotColumn(byte[] prefix, int slot) {
        return new byte[]{prefix[0], (byte) (slot >>> 8), (byte) slot};
    }

    /** The slot of a holder column, or -1 for any other column. */
    static int slotOf(byte[] qualifier) {
        if (qualifier.length != 3 || qualifier[0] != HOLDER_PREFIX[0]) {
            return -1;
        }
        return (qualifier[1] & 0xff) << 8 | qualifier[2] & 0xff;
    }

    static String storageKey(byte[] row) {
        return new String(row, 1, row.length - 1, StandardCharsets.UTF_8);
    }

    /**
     * Notes what differs between an existing table and this layout: into {@code correctness} what the store
     * cannot work with, into {@code tuning} what only costs performance or space.
     */
    static void compare(TableDescriptor existing, int regions, List<String> correctness, List<String> tuning) {
        String format = existing.getValue(FORMAT_ATTRIBUTE);
        if (format != null && !readsFormat(format)) {
            correctness.add("its rows are in format '" + format + "' (table attribute " + FORMAT_ATTRIBUTE + "), "
                    + "written by a later release of lockmanager; this one reads formats 1 to " + FORMAT
                    + " (upgrade this node, or give it another table)");
        }
        ColumnFamilyDescriptor family = existing.getColumnFamily(FAMILY);
        if (family == null) {
            correctness.add("column family 'D' is missing");
            return;
        }
        if (family.isNewVersionBehavior()) {
            tuning.add("NEW_VERSION_BEHAVIOR is true, which makes each lock+unlock up to twice as slow");
        }
        if (family.getMaxVersions() != 1) {
            tuning.add("VERSIONS is " + family.getMaxVersions() + ", not 1");
        }
        if (family.getCompressionType() != COMPRESSION) {
            tuning.add("COMPRESSION is " + family.getCompressionType() + ", not " + COMPRESSION);
        }
        if (regions != REGIONS) {
            tuning.add("the table has " + regions + " regions, not " + REGIONS);
        }
    }

    /** Whether this store reads rows of the format a table's {@link #FORMAT_ATTRIBUTE} names. */
    private static boolean readsFormat(String attribute) {
        try {
            int format = Integer.parseInt(attribute.trim());
            return format >= 1 && format <= FORMAT;
        } catch (NumberFormatException notANumber) {
            return false;
        }
    }

    /**
     * The owner cell with the lease as its TTL, in a Put of its own: a Put's TTL applies to every cell in it, and
     * the other cells of the lock must not expire while renewals keep the owner cell alive.
     */
    static Put leasedOwner(byte[] row, byte[] owner, long leaseMillis) {
        return new Put(row).addColumn(FAMILY, OWNER, owner).setTTL(leaseMillis);
    }
}
