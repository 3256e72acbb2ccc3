package io.github.lockmanager.cli;

import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.LockManagerException.ErrorCode;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The {@code lockmanager} command: looks at and acts on the locks of a store, without a lock manager of its own.
 * Exit codes: 0 done, 1 the store failed otherwise, 2 bad usage, 3 nothing to act on (the key is not locked),
 * 4 the store cannot be reached or used (wrong URL, host, credentials or table).
 */
@Command(name = "lockmanager", mixinStandardHelpOptions = true, versionProvider = LockManagerCli.Version.class,
        description = "Lists and administers the locks that lockmanager keeps in a JDBC database, HBase or Aerospike.",
        subcommands = {ListCommand.class, ShowCommand.class, WaitersCommand.class, AbortCommand.class, ForceReleaseCommand.class,
                CleanupCommand.class, ServeCommand.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:done", "1:the store failed", "2:bad usage", "3:the key is not locked",
                "4:the store cannot be reached or used"})
public final class LockManagerCli {
    static final int FAILED = 1;
    static final int NOT_LOCKED = 3;
    static final int UNREACHABLE = 4;

    public static void main(String[] args) {
        quietLogs();
        System.exit(commandLine().execute(args));
    }

    /**
     * The command prints its own results and errors ({@code lockmanager: ...}); the library's log lines go to standard
     * error only from WARN up, marked by their level, unless {@code -Dorg.slf4j.simpleLogger.defaultLogLevel} says
     * otherwise. Set before the first logger is made.
     */
    private static void quietLogs() {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel",
                System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        System.setProperty("org.slf4j.simpleLogger.showThreadName", "false");
        System.setProperty("org.slf4j.simpleLogger.showLogName", "false");
        System.setProperty("org.slf4j.simpleLogger.levelInBrackets", "true");
    }

    /** The command line with the error handling of the tool, for embedding and tests. */
    public static CommandLine commandLine() {
        CommandLine line = new CommandLine(new LockManagerCli());
        // RUNNING or running, JSON or json: an operator types what the output shows
        line.setCaseInsensitiveEnumValuesAllowed(true);
        line.setExecutionExceptionHandler((e, cmd, parsed) -> {
            if (e instanceof IllegalArgumentException) {
                cmd.getErr().println("lockmanager: " + e.getMessage());
                cmd.getErr().println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help'.");
                return cmd.getCommandSpec().exitCodeOnInvalidInput();
            }
            LockManagerException failure = LockManagerException.propagate(e);
            cmd.getErr().println("lockmanager: " + failure.getMessage());
            ErrorCode code = failure.getErrorCode();
            return code == ErrorCode.CONNECTION_ERROR || code == ErrorCode.RETRIES_EXHAUSTED
                    || code == ErrorCode.TABLE_CREATION_ERROR ? UNREACHABLE : FAILED;
        });
        return line;
    }

    /** The version the build wrote into {@code version.properties}, beside this class. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() throws IOException {
            Properties build = new Properties();
            try (InputStream in = LockManagerCli.class.getResourceAsStream("version.properties")) {
                if (in == null) {
                    throw new IOException("version.properties is missing from the lockmanager-cli jar");
                }
                build.load(in);
            }
            return new String[]{"lockmanager " + build.getProperty("version") + " (Java "
                    + System.getProperty("java.version") + ")"};
        }
    }
}
