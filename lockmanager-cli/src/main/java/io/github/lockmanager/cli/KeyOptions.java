package io.github.lockmanager.cli;

import io.github.lockmanager.LockLevel;
import picocli.CommandLine.Option;

/** The scope of the keys a command names: client, farm and level, as the managers that take them use. */
final class KeyOptions {
    @Option(names = "--client", description = "The managers' client id; default: ${DEFAULT-VALUE}",
            defaultValue = "default")
    String client;

    @Option(names = "--farm", description = "The farm of DC keys; default: ${DEFAULT-VALUE}", defaultValue = "default")
    String farm;

    @Option(names = "--level", description = "DC or XDC; default: ${DEFAULT-VALUE} (list: both, unless given)",
            defaultValue = "DC")
    LockLevel level;
}
