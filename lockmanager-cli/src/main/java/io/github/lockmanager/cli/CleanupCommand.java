package io.github.lockmanager.cli;

import io.github.lockmanager.spi.LockStore;
import picocli.CommandLine.Command;

@Command(name = "cleanup", mixinStandardHelpOptions = true,
        description = "Deletes the records that no lock uses any more (free or expired for longer than the store's "
                + "idle record retention), as the managers do now and then. Fencing tokens keep increasing.")
final class CleanupCommand extends StoreCommand {
    @Override
    int run(LockStore store) throws Exception {
        out().println("Deleted " + store.purgeIdleRecords() + " idle records from " + storeOptions.describe());
        return 0;
    }
}
