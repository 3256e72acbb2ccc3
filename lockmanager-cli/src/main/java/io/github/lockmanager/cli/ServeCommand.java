package io.github.lockmanager.cli;

import io.github.lockmanager.admin.LockAdmin;
import io.github.lockmanager.admin.LockAdminServer;
import io.github.lockmanager.spi.LockStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.BindException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Serves the admin page of the client's locks until stopped (Ctrl-C): every live lock with "
                + "filters, refreshed in place, and /locks.json for scripts.",
                "Read-only unless --actions is given; then abort, force-release and clean-up are offered to whoever "
                        + "signs in as --admin-user with the password in the variable --admin-password-env names."})
final class ServeCommand extends StoreCommand {
    @Option(names = "--port", description = "Default: ${DEFAULT-VALUE}; 0 picks a free one",
            defaultValue = "" + LockAdminServer.DEFAULT_PORT)
    int port;

    @Option(names = "--bind", paramLabel = "ADDRESS",
            description = "The address to listen on; default: ${DEFAULT-VALUE} (this machine only)",
            defaultValue = "127.0.0.1")
    InetAddress bind;

    @Option(names = "--actions", description = "Offer abort, force-release and clean-up to the signed-in admin user")
    boolean actions;

    @Option(names = "--admin-user", paramLabel = "NAME", description = "Who may act, with --actions")
    String adminUser;

    @Option(names = "--admin-password-env", paramLabel = "VARIABLE",
            description = "The environment variable that holds the admin user's password (8 chars or more)")
    String adminPasswordEnv;

    @Option(names = "--snapshot-ttl", paramLabel = "DURATION",
            description = "How long one scan of the store serves every viewer (ISO-8601); default: ${DEFAULT-VALUE}",
            defaultValue = "PT2S")
    Duration snapshotTtl;

    @Option(names = "--held-too-long", paramLabel = "DURATION",
            description = "Flag locks held longer than this (ISO-8601, e.g. PT10M); default: none")
    Duration heldTooLong;

    @Override
    int run(LockStore store) throws Exception {
        LockAdmin.Builder admin = LockAdmin.builder(store).clientId(keyOptions.client).farmId(keyOptions.farm)
                .snapshotTtl(snapshotTtl);
        if (heldTooLong != null) {
            admin.heldTooLongThreshold(heldTooLong);
        }
        LockAdminServer.Builder server = LockAdminServer.builder(admin.build()).bindAddress(bind).port(port);
        if (actions) {
            server.actionsFor(required(adminUser, "--actions needs --admin-user"), adminPassword());
        } else if (adminUser != null || adminPasswordEnv != null) {
            throw new IllegalArgumentException("--admin-user and --admin-password-env are for --actions; add it");
        }
        CountDownLatch stop = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            stop.countDown();
            try {
                stopped.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "lockmanager-serve-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        LockAdminServer started;
        try {
            started = server.start();
        } catch (BindException e) {
            removeHook(hook);
            err().println("lockmanager: " + e.getMessage() + "; choose another with --port (0 picks a free one) or "
                    + "another --bind address");
            return spec.exitCodeOnInvalidInput();
        }
        try (LockAdminServer running = started) {
            out().println("Serving the locks of " + storeOptions.describe() + " at http://" + bind.getHostAddress()
                    + ":" + running.port() + "/ " + (actions ? "(actions for " + adminUser + ")" : "(read-only)")
                    + "; Ctrl-C stops it.");
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            stopped.countDown();
            if (stop.getCount() > 0) {
                removeHook(hook);
            }
        }
        return 0;
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the JVM began to exit meanwhile: the hook runs and finds the server closed
        }
    }

    private String adminPassword() {
        String variable = required(adminPasswordEnv, "--actions needs --admin-password-env");
        String password = System.getenv(variable);
        if (password == null) {
            throw new IllegalArgumentException("--admin-password-env names " + variable + ", which is not set");
        }
        return password;
    }

    private static String required(String value, String message) {
        if (value == null) {
            throw new IllegalArgumentException(message);
        }
        return value;
    }
}
