package io.github.lockmanager.store.redis;

import io.lettuce.core.RedisCommandExecutionException;
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

    /** NOSCRIPT: the server's script cache does not hold the script (flushed, or a restarted or new server). */
    static boolean isNoScript(Throwable failure) {
        return failure instanceof RedisCommandExecutionException
                && String.valueOf(failure.getMessage()).startsWith("NOSCRIPT");
    }
}
