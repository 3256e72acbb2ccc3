package io.github.lockmanager.store.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.github.lockmanager.store.support.RetryPolicy;

import java.util.concurrent.TimeoutException;

/**
 * Which Redis failures are worth another attempt: a timeout, a broken or refused connection, and the server's own
 * passing states (loading its data set, busy with a script, a replica while a failover runs, a cluster moving
 * slots, out of memory until something frees it). An error of a command itself (a script error, a hash of another
 * type under a lock's name) fails again, and ends the call.
 */
final class RedisFailures implements RetryPolicy.Classifier {
    static final RedisFailures INSTANCE = new RedisFailures();

    private static final String[] PASSING = {"LOADING", "BUSY", "MASTERDOWN", "READONLY", "TRYAGAIN", "CLUSTERDOWN",
            "NOREPLICAS", "OOM", "MOVED", "ASK", "UNBLOCKED"};

    private RedisFailures() {
    }

    @Override
    public RetryPolicy.Failure classify(Exception failure) {
        RedisCommandExecutionException refused = refusedSetup(failure);
        if (refused != null) {
            // the server answered the connection's setup (AUTH, SELECT, HELLO) with an error: it will again
            return RetryPolicy.Failure.PERMANENT;
        }
        if (failure instanceof RedisCommandExecutionException command) {
            String message = String.valueOf(command.getMessage());
            for (String passing : PASSING) {
                if (message.startsWith(passing)) {
                    return RetryPolicy.Failure.TRANSIENT;
                }
            }
            return RetryPolicy.Failure.PERMANENT;
        }
        if (failure instanceof TimeoutException || failure instanceof RedisException
                || failure instanceof java.io.IOException) {
            return RetryPolicy.Failure.TRANSIENT;
        }
        return RetryPolicy.Failure.PERMANENT;
    }

    @Override
    public String describe(Exception failure) {
        RedisCommandExecutionException refused = refusedSetup(failure);
        return refused != null ? "the server refused the connection's setup: " + refused.getMessage()
                + " (check the URI's database, user and password)" : failure.toString();
    }

    /** The server's error behind a failed connection ("Unable to connect to ..."), if that is what it was. */
    private static RedisCommandExecutionException refusedSetup(Exception failure) {
        if (!(failure instanceof RedisConnectionException)) {
            return null;
        }
        Throwable c = failure.getCause();
        for (int depth = 0; c != null && depth < 8; depth++, c = c.getCause()) {
            if (c instanceof RedisCommandExecutionException command) {
                return command;
            }
        }
        return null;
    }

    /** NOSCRIPT: the server's script cache does not hold the script (flushed, or a restarted or new server). */
    static boolean isNoScript(Throwable failure) {
        return failure instanceof RedisCommandExecutionException
                && String.valueOf(failure.getMessage()).startsWith("NOSCRIPT");
    }
}
