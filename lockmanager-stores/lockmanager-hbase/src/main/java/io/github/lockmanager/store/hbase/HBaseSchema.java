package io.github.lockmanager.store.hbase;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import io.github.lockmanager.store.support.RetryPolicy;
import org.apache.hadoop.hbase.TableExistsException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** The HBase store's table: created with the recommended layout when absent, else checked. */
final class HBaseSchema {
    private static final Logger log = LoggerFactory.getLogger(HBaseSchema.class);

    private final Connection connection;
    private final TableName tableName;

    HBaseSchema(Connection connection, TableName tableName) {
        this.connection = connection;
        this.tableName = tableName;
    }

    /**
     * Creates the table when absent (another node may do so at the same moment), else checks its layout: a layout
     * the store cannot keep its promises on is refused, one that only costs speed is logged.
     */
    void createOrCheck() throws LockManagerException {
        try (Admin admin = connection.getAdmin()) {
            boolean exists;
            try {
                exists = admin.tableExists(tableName);
            } catch (IOException e) {
                throw unreachable(e);
            }
            if (!exists) {
                try {
                    admin.createTable(HBaseTableLayout.descriptor(tableName), HBaseTableLayout.splitKeys());
                    log.info("Created lock table {} with {} regions", tableName, HBaseTableLayout.REGIONS);
                    return;
                } catch (TableExistsException e) {
                    log.debug("Lock table {} was created by another node meanwhile", tableName);
                }
            }
            List<String> correctness = new ArrayList<>();
            List<String> tuning = new ArrayList<>();
            HBaseTableLayout.compare(admin.getDescriptor(tableName), admin.getRegions(tableName).size(), correctness,
                    tuning);
            if (!correctness.isEmpty()) {
                throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "lock table " + tableName
                        + " exists with a layout the store cannot use: " + String.join("; ", correctness)
                        + ". Alter the column family or choose another table name.");
            }
            if (!tuning.isEmpty()) {
                log.warn("Lock table {} differs from the recommended layout: {}. Locks work; alter it when convenient.",
                        tableName, String.join("; ", tuning));
            }
        } catch (IOException e) {
            if (RetryPolicy.isInterruption(e)) {
                Thread.currentThread().interrupt();
                throw new LockManagerException(ErrorCode.CONNECTION_ERROR, "creating lock table " + tableName
                        + " was interrupted", e);
            }
            throw new LockManagerException(ErrorCode.TABLE_CREATION_ERROR, "could not create or inspect lock table "
                    + tableName + ": " + e, e);
        }
    }

    private LockManagerException unreachable(IOException e) {
        if (RetryPolicy.isInterruption(e)) {
            Thread.currentThread().interrupt();
        }
        String quorum = connection.getConfiguration().get("hbase.zookeeper.quorum") + " (client port "
                + connection.getConfiguration().get("hbase.zookeeper.property.clientPort", "2181") + ")";
        return new LockManagerException(ErrorCode.CONNECTION_ERROR, "could not reach the HBase cluster of ZooKeeper "
                + "quorum " + quorum + " to look up lock table " + tableName + ": " + e, e);
    }
}
