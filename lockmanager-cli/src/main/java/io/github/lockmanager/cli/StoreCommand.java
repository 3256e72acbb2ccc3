package io.github.lockmanager.cli;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.admin.LockAdmin;
import io.github.lockmanager.admin.LockJson;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockStore;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

/** A command that works on one store: opens it, runs, closes it; answers an exit code. */
abstract class StoreCommand implements Callable<Integer> {
    private static final Set<String> MISSING_TABLE = Set.of("42P01", "42S02", "42102");

    @Mixin
    StoreOptions storeOptions;

    @Mixin
    KeyOptions keyOptions;

    @Spec
    CommandSpec spec;

    @Override
    public final Integer call() throws Exception {
        try (LockStore store = storeOptions.open()) {
            return run(store);
        } catch (LockManagerException e) {
            if (!missingTable(e)) {
                throw e;
            }
            err().println("lockmanager: there is no lock table '" + storeOptions.table + "' in " + storeOptions.describe()
                    + ": name the managers' table with --table");
            return LockManagerCli.UNREACHABLE;
        }
    }

    /** Whether the store failed because its table does not exist (SQL states of PostgreSQL, MariaDB/MySQL, H2). */
    private static boolean missingTable(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && MISSING_TABLE.contains(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    abstract int run(LockStore store) throws Exception;

    /** The admin of {@code store}'s locks of the command's client and farm, scanning afresh on every call. */
    LockAdmin admin(LockStore store) {
        return LockAdmin.builder(store).clientId(keyOptions.client).farmId(keyOptions.farm).snapshotTtl(Duration.ZERO)
                .build();
    }

    /** How a command prints what it found or did: for people, or for scripts. */
    enum Format { table, json }

    /** Records as {@code format} says, with "expires in" as of now; a table names each one's client if asked. */
    void print(List<LockRecord> records, Format format, LockAdmin admin, boolean withClient) {
        if (format == Format.json) {
            out().println(LockJson.array(records, admin.now(), admin));
        } else {
            Records.table(records, admin.now(), withClient, out());
        }
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }

    int notLocked(String key) {
        err().println("lockmanager: '" + key + "' (" + keyOptions.level + ", client " + keyOptions.client
                + ") is not locked in " + storeOptions.describe());
        return LockManagerCli.NOT_LOCKED;
    }
}
