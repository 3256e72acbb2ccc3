package io.github.lockmanager.cli;

import io.github.lockmanager.admin.LockAdmin;
import io.github.lockmanager.spi.LockRecord;
import io.github.lockmanager.spi.LockStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.List;

@Command(name = "show", mixinStandardHelpOptions = true,
        description = "Shows every record the store keeps of KEY: each holder, and records whose lease has ended "
                + "where the store keeps them until purged.")
final class ShowCommand extends StoreCommand {
    @Parameters(paramLabel = "KEY", description = "The key as the application names it")
    String key;

    @Option(names = "--format", description = "table or json; default: ${DEFAULT-VALUE}", defaultValue = "table")
    Format format;

    @Override
    int run(LockStore store) throws Exception {
        LockAdmin admin = admin(store);
        List<LockRecord> records = admin.inspect(key, keyOptions.level);
        if (records.isEmpty()) {
            return notLocked(key);
        }
        print(records, format, admin, false);
        return 0;
    }
}
